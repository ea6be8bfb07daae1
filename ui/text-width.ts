// Terminal column widths: wide characters (CJK, most emoji) take two columns, so lines are cut,
// wrapped and padded by columns, never by string length.
import stringWidth from 'string-width';

export function columns(text: string): number {
  return stringWidth(text);
}

/** `text` cut to at most `width` columns, with `…` when something was cut. */
export function fitColumns(text: string, width: number): string {
  if (width <= 0) return '';
  if (columns(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const size = columns(char);
    if (used + size > width - 1) break;
    out += char;
    used += size;
  }
  return `${out}…`;
}

/**
 * `line` wrapped into rows of at most `width` columns: at the last space that fits when there is
 * one, else between characters (a wide character never straddles two rows). Rows after the first
 * keep the line's own indentation, when that leaves room. Always one row or more.
 */
export function wrapColumns(line: string, width: number): string[] {
  if (width <= 0 || columns(line) <= width) return [line];
  const leading = /^ */.exec(line)![0];
  const indent = leading.length * 2 <= width ? leading : '';
  const rows: string[] = [];
  let row = '';
  let used = 0;
  let lastSpace = -1;
  const startRow = (rest: string): void => {
    row = indent + rest;
    used = columns(row);
    lastSpace = -1;
  };
  for (const char of line) {
    const size = columns(char);
    // Spaces where a continuation row would begin are the break itself.
    if (char === ' ' && rows.length > 0 && row === indent) continue;
    if (used + size > width && row.trim() !== '') {
      if (char === ' ') {
        // The space itself is where the row breaks.
        rows.push(row);
        startRow('');
        continue;
      }
      if (lastSpace > indent.length) {
        rows.push(row.slice(0, lastSpace));
        startRow(row.slice(lastSpace + 1));
      } else {
        rows.push(row);
        startRow('');
      }
    }
    row += char;
    used += size;
    if (char === ' ' && row.trim() !== '') lastSpace = row.length - 1;
  }
  rows.push(row);
  return rows;
}
