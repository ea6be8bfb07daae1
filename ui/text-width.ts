// Terminal column widths: wide characters (CJK, most emoji) take two columns, so lines are cut
// and padded by columns, never by string length.
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
