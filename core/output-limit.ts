// Keeps what the model sees bounded: over either limit (characters, lines), the whole output goes
// to a spill file and the model gets the head that fits plus one notice line naming the file and how
// much it holds. A spill that cannot be written (its directory gone for good, a full disk, a name a
// tool took first) never fails the call: the notice says the full output could not be kept, and why.
import { closeSync, constants, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDirectory } from './make-directory.js';

export const DEFAULT_MAX_INLINE_CHARS = 50_000;
export const DEFAULT_MAX_INLINE_LINES = 2_000;

export interface LimitedOutput {
  content: string;
  /** Set when the output was too long: where all of it is. */
  spillPath?: string;
  /** Set when the output was too long and its spill file could not be written: why. */
  spillError?: string;
}

/**
 * The spill directory is a tool's to write in: the file is created here or not at all (O_EXCL), so
 * a link, a FIFO or a file a tool put at its name is neither followed, waited on nor overwritten.
 */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines - 1 : lines;
}

const format = (n: number): string => n.toLocaleString('en-US');

/** How much of `content` its head `shown` holds: in lines, or in characters when it cuts a line. */
function shownPart(shown: string, content: string, totalLines: number): string {
  const cutsLine = !shown.endsWith('\n') && content[shown.length] !== '\n';
  return cutsLine
    ? `${format(shown.length)} of ${format(content.length)} characters`
    : `${format(countLines(shown))} of ${format(totalLines)} lines`;
}

const notice = (part: string, where: string): string => `[output truncated: shown ${part}; ${where}]`;

/** The fs error code of a failed write (ENOSPC, EACCES …), or its message when it has none. */
function failureCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error as Error).message.slice(0, 200);
}

/**
 * Writes a new spill file, mode 0600; a half-written one (a full disk) would pass for the whole output: it goes.
 * Its directory is recreated when it has gone (another moonpool process may prune it, a tool may delete
 * `ctx.spill_dir`). Returns why it failed, or undefined.
 */
function spill(spillDir: string, path: string, data: string | Uint8Array): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, CREATE_NEW, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return failureCode(error);
    try {
      makeDirectory(spillDir, 0o700);
      fd = openSync(path, CREATE_NEW, 0o600);
    } catch (error) {
      return failureCode(error);
    }
  }
  try {
    writeFileSync(fd, data);
    return undefined;
  } catch (error) {
    try {
      unlinkSync(path);
    } catch {
      // Gone already, or something other than our file put in its place: none of the output is there.
    }
    return failureCode(error);
  } finally {
    closeSync(fd);
  }
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
 * and returns the head that fits with the notice. Never throws for the spill file.
 */
export function limitOutput(
  content: string,
  raw: Uint8Array | undefined,
  limits: { maxChars: number; maxLines: number },
  spillDir: string,
  tool: string,
  callId: string,
): LimitedOutput {
  const totalLines = countLines(content);
  if (content.length <= limits.maxChars && totalLines <= limits.maxLines) return { content };
  const spillPath = join(spillDir, `${tool}-${callId}.txt`);
  const spillError = spill(spillDir, spillPath, raw ?? content);
  const where =
    spillError === undefined
      ? `the full output is in ${spillPath}`
      : `the full output could not be saved (${spillError} writing ${spillPath})`;
  // Room for the longest notice (characters outnumber lines).
  const reserve = notice(`${format(content.length)} of ${format(content.length)} characters`, where).length + 1;
  const shown = head(content, Math.max(0, limits.maxChars - reserve), Math.max(1, limits.maxLines - 1));
  const limited = `${shown.replace(/\n$/, '')}\n${notice(shownPart(shown, content, totalLines), where)}`;
  return spillError === undefined ? { content: limited, spillPath } : { content: limited, spillError };
}
