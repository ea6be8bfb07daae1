// Opening one session log file for reading and walking its intact frames. Only a regular file is
// read, never through a symlink and never blocking (a FIFO named like a log would wait forever);
// what cannot be read is a warning, never a throw. Shared by the readers that decode every record
// (session-log.ts), those that only outline them, and the one that streams them (session-stream.ts).
import { closeSync, constants, fstatSync, openSync } from 'node:fs';
import { HEADER_BYTES, readFrames, type FrameEvent } from './session-frames.js';

/** A log file open for reading, and its size when opened. */
export interface OpenLogFile {
  fd: number;
  size: number;
}

/** An intact frame of a log file, or a warning about what lies between frames. */
export type LogFileEvent = { frame: Extract<FrameEvent, { kind: 'frame' }> } | { warning: string };

/** Opens `path`; a missing file is `{ missing }`, one that cannot be read is `{ unreadable }` after a warning. */
export function openLogFile(
  path: string,
  warn: (line: string) => void,
): OpenLogFile | { missing: true } | { unreadable: true } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { missing: true };
    warn(
      code === 'ELOOP'
        ? `${path}: not a regular file; skipped`
        : `${path}: cannot be read (${code ?? (error as Error).message})`,
    );
    return { unreadable: true };
  }
  try {
    const stats = fstatSync(fd);
    if (stats.isFile()) return { fd, size: stats.size };
    warn(`${path}: not a regular file; skipped`);
  } catch (error) {
    warn(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  closeSync(fd);
  return { unreadable: true };
}

/**
 * The intact frames of an open log file in file order, and a warning for what lies between them.
 * Returns where the last intact frame ends, or `unreadable` when reading failed part way.
 */
export function* logFileEvents(
  file: OpenLogFile,
  path: string,
): Generator<LogFileEvent, { validBytes: number; unreadable?: true }> {
  let validBytes = 0;
  try {
    for (const event of readFrames(file.fd, file.size)) {
      if (event.kind === 'skipped') {
        yield { warning: `${path}: skipped ${event.bytes} bytes at offset ${event.offset}: ${event.problem}` };
        continue;
      }
      yield { frame: event };
      validBytes = event.offset + HEADER_BYTES + event.payload.length;
    }
    return { validBytes };
  } catch (error) {
    yield { warning: `${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
    return { validBytes: 0, unreadable: true };
  }
}
