// Keeps what the model sees bounded. Two independent limits, whichever is hit first: characters
// and lines. Over either, the whole output goes to a spill file and the model gets the head that
// fits plus one notice line naming the file and how much it holds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_MAX_INLINE_CHARS = 50_000;
export const DEFAULT_MAX_INLINE_LINES = 2_000;

export interface OutputLimits {
  maxChars: number;
  maxLines: number;
}

export interface LimitedOutput {
  content: string;
  /** Set when the output was too long: where all of it is. */
  spillPath?: string;
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

function notice(shownLines: number, totalLines: number, path: string): string {
  const format = (n: number): string => n.toLocaleString('en-US');
  return `[output truncated: shown ${format(shownLines)} of ${format(totalLines)} lines; the full output is in ${path}]`;
}

/** The longest head of `text` with at most `maxLines` lines and `maxChars` characters, cut at a line end when it can be. */
function head(text: string, maxChars: number, maxLines: number): string {
  let end = 0;
  for (let line = 0; line < maxLines; line++) {
    const newline = text.indexOf('\n', end);
    const next = newline === -1 ? text.length : newline + 1;
    if (next > maxChars) break;
    end = next;
    if (newline === -1) break;
  }
  if (end === 0 && text.length > 0) {
    // A first line longer than the budget: cut it, without splitting a surrogate pair.
    end = Math.min(maxChars, text.length);
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--;
  }
  return text.slice(0, end);
}

/**
 * Returns `content` unchanged when it fits; otherwise writes it whole to
 * `<spillDir>/<tool>-<callId>.txt` (`raw` bytes when given, so binary output is kept exactly)
 * and returns the head that fits with the notice.
 */
export function limitOutput(content: string, raw: Uint8Array | undefined, limits: OutputLimits, spillDir: string, tool: string, callId: string): LimitedOutput {
  const totalLines = countLines(content);
  if (content.length <= limits.maxChars && totalLines <= limits.maxLines) return { content };
  const spillPath = join(spillDir, `${tool}-${callId}.txt`);
  writeFileSync(spillPath, raw ?? content, { mode: 0o600 });
  const reserve = notice(totalLines, totalLines, spillPath).length + 1;
  const shown = head(content, Math.max(0, limits.maxChars - reserve), Math.max(1, limits.maxLines - 1)).replace(/\n$/, '');
  return { content: `${shown}\n${notice(countLines(shown), totalLines, spillPath)}`, spillPath };
}
