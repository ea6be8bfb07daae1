// A session's log: one append-only file, one record per finished call. Each record is framed as
// MAGIC (4 bytes) | payload length (u32 LE) | CRC-32 of the payload (u32 LE) | payload (msgpack),
// so a torn tail — the host killed mid-write — is detected and skipped, and every complete record
// before it survives. Opening a session to append cuts such a tail off first.
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { pack, unpack } from 'msgpackr';
import type { CallStatus } from './call-result.js';

const MAGIC = Buffer.from('MPR1', 'latin1');
const HEADER_BYTES = 12;
/** Largest record accepted when reading (a corrupt length must not make us allocate gigabytes). */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;

/** One finished call, as logged. */
export interface SessionRecord {
  callId: string;
  tool: string;
  args: unknown;
  status: CallStatus;
  /** The model-facing content, bounded like the result. */
  content: string;
  spillPath?: string;
  title?: string;
  durationMs: number;
  /** The last `ctx:show` state, msgpack-encoded. */
  snapshot?: Uint8Array;
  /** When the call finished (ms since the epoch). */
  finishedAt: number;
}

export interface SessionReadout {
  records: SessionRecord[];
  /** Problems met while reading: a torn or corrupt tail, with its offset. */
  warnings: string[];
  /** Where the last complete record ends. */
  validBytes: number;
}

export function sessionLogPath(stateDir: string, sessionId: string): string {
  return join(stateDir, 'sessions', `${sessionId}.log`);
}

export function readSessionLog(path: string): SessionReadout {
  if (!existsSync(path)) return { records: [], warnings: [], validBytes: 0 };
  const data = readFileSync(path);
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  let offset = 0;
  while (offset < data.length) {
    const problem = recordProblem(data, offset);
    if (problem) {
      warnings.push(`${path}: skipped ${data.length - offset} bytes at offset ${offset}: ${problem}`);
      break;
    }
    const length = data.readUInt32LE(offset + 4);
    records.push(unpack(data.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length)) as SessionRecord);
    offset += HEADER_BYTES + length;
  }
  return { records, warnings, validBytes: offset };
}

function recordProblem(data: Buffer, offset: number): string | undefined {
  if (data.length - offset < HEADER_BYTES) return 'a torn record header';
  if (!data.subarray(offset, offset + 4).equals(MAGIC)) return 'no record starts here';
  const length = data.readUInt32LE(offset + 4);
  if (length > MAX_RECORD_BYTES) return `a record length of ${length} bytes`;
  if (data.length - offset - HEADER_BYTES < length) return 'a torn record (the file ends inside it)';
  const payload = data.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length);
  if (crc32(payload) !== data.readUInt32LE(offset + 8)) return 'a record whose checksum does not match';
  return undefined;
}

export function encodeRecord(record: SessionRecord): Buffer {
  const payload = pack(record);
  const header = Buffer.alloc(HEADER_BYTES);
  MAGIC.copy(header, 0);
  header.writeUInt32LE(payload.length, 4);
  header.writeUInt32LE(crc32(payload), 8);
  return Buffer.concat([header, payload]);
}

/**
 * The open log of the current session. `append` writes at once (one write per record); `enqueue`
 * writes on the next turn of the event loop, all queued records in one write, so that a host
 * answering many calls does not wait on the disk for each.
 */
export class SessionLog {
  private queued: Buffer[] = [];
  private flushScheduled = false;

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** What was wrong with the file when it was opened (a torn tail that was cut off). */
    readonly warnings: string[],
  ) {}

  static open(stateDir: string, sessionId: string): SessionLog {
    const path = sessionLogPath(stateDir, sessionId);
    mkdirSync(join(stateDir, 'sessions'), { recursive: true, mode: 0o700 });
    const existing = readSessionLog(path);
    const fd = openSync(path, 'a', 0o600);
    if (existing.warnings.length > 0) ftruncateSync(fd, existing.validBytes);
    return new SessionLog(path, fd, existing.warnings);
  }

  append(record: SessionRecord): void {
    this.write(encodeRecord(record));
  }

  /** Queues a record; `onError` hears of one that could not be encoded or written (a full disk, say). */
  enqueue(record: SessionRecord, onError: (error: unknown) => void): void {
    try {
      this.queued.push(encodeRecord(record));
    } catch (error) {
      onError(error);
      return;
    }
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      try {
        this.flush();
      } catch (error) {
        onError(error);
      }
    });
  }

  /** Writes every queued record now. */
  flush(): void {
    this.flushScheduled = false;
    if (this.queued.length === 0) return;
    const batch = Buffer.concat(this.queued);
    this.queued = [];
    this.write(batch);
  }

  close(): void {
    try {
      this.flush();
    } finally {
      closeSync(this.fd);
    }
  }

  private write(bytes: Buffer): void {
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
  }
}
