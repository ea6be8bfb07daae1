// Terminal column widths: wide characters (CJK, most emoji) take two columns, so lines are cut,
// wrapped and padded by columns, never by string length. Text is measured and cut by grapheme
// cluster (a family emoji joined by zero-width joiners is one 2-column cluster, never split), each
// distinct cluster measured once. Wrapped lines are kept, by content and width, in a cache bounded
// by the characters it holds: a frame that draws the same blocks again wraps nothing again.
import stringWidth from 'string-width';

export function columns(text: string): number {
  return stringWidth(text);
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
/** Printable ASCII: one column per character, one character per cluster. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Clusters measured so far (bounded: a new one past the limit clears it). */
const clusterWidths = new Map<string, number>();
const MAX_MEASURED_CLUSTERS = 10_000;

function clusterColumns(cluster: string): number {
  if (cluster.length === 1 && cluster >= ' ' && cluster <= '~') return 1;
  let width = clusterWidths.get(cluster);
  if (width === undefined) {
    width = stringWidth(cluster);
    if (clusterWidths.size >= MAX_MEASURED_CLUSTERS) clusterWidths.clear();
    clusterWidths.set(cluster, width);
  }
  return width;
}

/** The grapheme clusters of `text`, with their widths. */
function* clusters(text: string): Generator<[string, number]> {
  if (PRINTABLE_ASCII.test(text)) {
    for (const char of text) yield [char, 1];
    return;
  }
  for (const { segment } of segmenter.segment(text)) yield [segment, clusterColumns(segment)];
}

/** `text` cut to at most `width` columns, with `…` when something was cut. */
export function fitColumns(text: string, width: number): string {
  if (width <= 0) return '';
  if (columns(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const [cluster, size] of clusters(text)) {
    if (used + size > width - 1) break;
    out += cluster;
    used += size;
  }
  return `${out}…`;
}

/** Wrapped lines kept, by width and line, oldest first; bounded by the characters of their lines. */
const wrapped = new Map<string, string[]>();
let wrappedChars = 0;
const MAX_WRAPPED_CHARS = 4 * 1024 * 1024;

/**
 * `line` wrapped into rows of at most `width` columns: at the last space that fits when there is
 * one, else between grapheme clusters (a wide one never straddles two rows). Rows after the first
 * keep the line's own indentation, when that leaves room. Always one row or more.
 */
export function wrapColumns(line: string, width: number): string[] {
  if (width <= 0) return [line];
  if (line.length <= width && PRINTABLE_ASCII.test(line)) return [line];
  const key = `${width}:${line}`;
  const kept = wrapped.get(key);
  if (kept !== undefined) return kept;
  const rows = wrapUncached(line, width);
  if (line.length <= MAX_WRAPPED_CHARS) {
    while (wrappedChars + line.length > MAX_WRAPPED_CHARS && wrapped.size > 0) {
      const [oldest] = wrapped.keys();
      wrappedChars -= oldest!.length;
      wrapped.delete(oldest!);
    }
    wrapped.set(key, rows);
    wrappedChars += key.length;
  }
  return rows;
}

function wrapUncached(line: string, width: number): string[] {
  if (columns(line) <= width) return [line];
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
  for (const [cluster, size] of clusters(line)) {
    // Spaces where a continuation row would begin are the break itself.
    if (cluster === ' ' && rows.length > 0 && row === indent) continue;
    if (used + size > width && row.trim() !== '') {
      if (cluster === ' ') {
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
    row += cluster;
    used += size;
    if (cluster === ' ' && row.trim() !== '') lastSpace = row.length - 1;
  }
  rows.push(row);
  return rows;
}
