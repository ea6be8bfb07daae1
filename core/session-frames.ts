// A session log file read a frame at a time: MAGIC (4 bytes) | payload length (u32 LE) | CRC-32
// of the payload (u32 LE) | payload. A reader holds one frame's payload at a time, never the file,
// so memory is bounded by the largest record whatever the file's size. Only a regular file is
// read, never through a symlink and never blocking (a FIFO named like a log would wait forever);
// what cannot be read is a warning, never a throw. Damage is skipped by looking for the next MAGIC
// whose frame checks out; the checksums of frames that fail count against a budget of twice the
// file's size, so no arrangement of bad frames (each claiming the rest of the file) makes a read
// cost more than a few passes over it.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';

export const MAGIC = Buffer.from('MPR1', 'latin1');
export const HEADER_BYTES = 12;
/** Largest record length believed when reading (older logs were written without a bound). */
export const MAX_READ_RECORD_BYTES = 256 * 1024 * 1024;
/** Checksum bytes frames that fail may cost beyond twice the file's size. */
const BUDGET_SLACK_BYTES = 1024 * 1024;
/** Bytes read at a time while looking for the next frame. */
const SCAN_CHUNK_BYTES = 1024 * 1024;

/** A log file open for reading, and its size when opened. */
export interface LogFile {
  path: string;
  fd: number;
  size: number;
}

/** What reading a log file found: where its last intact frame ends; `unreadable` when it exists but cannot be read. */
export interface LogEnd {
  validBytes: number;
  unreadable?: true;
}

type Attempt = { payload: Buffer } | { problem: string };

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** Opens `path`; a missing file or one that cannot be read (after a warning) is its LogEnd. */
export function openLogFile(path: string, warn: (line: string) => void): LogFile | LogEnd {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    if (stats.isFile()) return { path, fd, size: stats.size };
    warn(`${path}: not a regular file; skipped`);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return { validBytes: 0 };
    warn(code === 'ELOOP' ? `${path}: not a regular file; skipped` : `${path}: cannot be read (${code})`);
  }
  if (fd !== undefined) closeSync(fd);
  return { validBytes: 0, unreadable: true };
}

/** The intact frames of an open log file in file order, and a warning for what lies between them. */
export function* logFrames(
  file: LogFile,
): Generator<{ offset: number; payload: Buffer } | { warning: string }, LogEnd> {
  const reader = new FrameReader(file.fd, file.size);
  let offset = 0;
  let validBytes = 0;
  let found: Buffer | undefined;
  try {
    while (offset < file.size) {
      const attempt: Attempt = found ? { payload: found } : reader.frameAt(offset);
      found = undefined;
      if ('payload' in attempt) {
        yield { offset, payload: attempt.payload };
        offset = validBytes = offset + HEADER_BYTES + attempt.payload.length;
        continue;
      }
      const next = reader.nextFrame(offset + 1);
      const problem = next.gaveUp
        ? `${attempt.problem}; the rest of the file is damage past what is searched`
        : attempt.problem;
      yield { warning: `${file.path}: skipped ${next.at - offset} bytes at offset ${offset}: ${problem}` };
      offset = next.at;
      found = next.payload;
    }
    return { validBytes };
  } catch (error) {
    yield { warning: `${file.path}: cannot be read (${errorCode(error)})` };
    return { validBytes: 0, unreadable: true };
  }
}

/** The frame at `offset` of an open log file, its checksum checked, or why there is none. */
export function frameAt(file: LogFile, offset: number): Attempt {
  return new FrameReader(file.fd, file.size).frameAt(offset);
}

class FrameReader {
  /** Checksum bytes that frames failing their check may still cost. */
  private budget: number;
  private readonly header = Buffer.alloc(HEADER_BYTES);

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {
    this.budget = 2 * size + BUDGET_SLACK_BYTES;
  }

  frameAt(offset: number): Attempt {
    if (this.size - offset < HEADER_BYTES) return { problem: 'a torn record header' };
    this.read(this.header, offset);
    if (!this.header.subarray(0, 4).equals(MAGIC)) return { problem: 'no record starts here' };
    const length = this.header.readUInt32LE(4);
    if (length > MAX_READ_RECORD_BYTES) return { problem: `a record length of ${length} bytes` };
    if (this.size - offset - HEADER_BYTES < length) return { problem: 'a torn record (the file ends inside it)' };
    if (length > this.budget) return { problem: 'a record not checked: damage past what is searched' };
    const expected = this.header.readUInt32LE(8);
    const payload = Buffer.allocUnsafe(length);
    this.read(payload, offset + HEADER_BYTES);
    if (crc32(payload) !== expected) {
      this.budget -= length;
      return { problem: 'a record whose checksum does not match' };
    }
    return { payload };
  }

  /** The next intact frame at or after `from`; the end of the file when none is, or when the budget ran out. */
  nextFrame(from: number): { at: number; payload?: Buffer; gaveUp?: true } {
    if (this.size - from < MAGIC.length) return { at: this.size };
    const chunk = Buffer.allocUnsafe(Math.min(SCAN_CHUNK_BYTES, this.size - from));
    for (let start = from; start < this.size - 3; start += chunk.length - 3) {
      const length = this.read(chunk, start);
      const view = chunk.subarray(0, length);
      for (let at = view.indexOf(MAGIC); at !== -1; at = view.indexOf(MAGIC, at + 1)) {
        if (this.budget <= 0) return { at: this.size, gaveUp: true };
        const attempt = this.frameAt(start + at);
        if ('payload' in attempt) return { at: start + at, payload: attempt.payload };
      }
      if (start + length >= this.size) break;
    }
    return { at: this.size };
  }

  private read(into: Buffer, position: number): number {
    let done = 0;
    while (done < into.length) {
      const read = readSync(this.fd, into, done, into.length - done, position + done);
      if (read === 0) break;
      done += read;
    }
    return done;
  }
}
