// A session's log: one append-only file, one record per finished call. Each record is framed as
// MAGIC (4 bytes) | payload length (u32 LE) | CRC-32 of the payload (u32 LE) | payload (msgpack),
// so a torn tail — the host killed mid-write — is detected and skipped, and every complete record
// before it survives. Opening a session to append cuts such a tail off first.
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { pack, RESERVE_START_SPACE, unpack } from 'msgpackr';
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
  // msgpackr leaves room for the header in front of the payload: one buffer, no copy.
  const framed = pack(record, RESERVE_START_SPACE | HEADER_BYTES);
  const payload = framed.subarray(HEADER_BYTES);
  MAGIC.copy(framed, 0);
  framed.writeUInt32LE(payload.length, 4);
  framed.writeUInt32LE(crc32(payload), 8);
  return framed;
}

/** How long queued records may wait before they are written together. */
const FLUSH_DELAY_MS = 20;
/** Queued records past which the queue is written at once rather than when the delay ends. */
const FLUSH_RECORDS = 1000;

/**
 * The open log of the current session. `append` writes at once (one write per record); `enqueue`
 * queues the record, and the queue is encoded and written in one write within FLUSH_DELAY_MS, so
 * a host answering thousands of calls a second makes a few writes, not one per call (encoding
 * and writing per call cost a warm call a fifth of its time). Queued records are written on
 * `flush`, `close`, and when the process exits; a host killed outright loses at most the last
 * FLUSH_DELAY_MS of records. A queued record is encoded when it is written, so it must not be
 * changed after it is queued.
 */
export class SessionLog {
  private queued: SessionRecord[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  private lostRecords = 0;
  private readonly flushOnExit = (): void => this.flushQuietly();

  private constructor(
    readonly path: string,
    private readonly fd: number,
    /** What was wrong with the file when it was opened (a torn tail that was cut off). */
    readonly warnings: string[],
  ) {
    process.on('exit', this.flushOnExit);
  }

  static open(stateDir: string, sessionId: string): SessionLog {
    const path = sessionLogPath(stateDir, sessionId);
    mkdirSync(join(stateDir, 'sessions'), { recursive: true, mode: 0o700 });
    const existing = readSessionLog(path);
    const fd = openSync(path, 'a', 0o600);
    if (existing.warnings.length > 0) ftruncateSync(fd, existing.validBytes);
    return new SessionLog(path, fd, existing.warnings);
  }

  /** Records that could not be encoded or written (a full disk, say). */
  get lost(): number {
    return this.lostRecords;
  }

  append(record: SessionRecord): void {
    this.write(encodeRecord(record));
  }

  /** Queues a record to be written with the others within FLUSH_DELAY_MS. */
  enqueue(record: SessionRecord): void {
    this.queued.push(record);
    if (this.queued.length >= FLUSH_RECORDS) this.flushQuietly();
    else if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => this.flushQuietly(), FLUSH_DELAY_MS);
      // Pending records never keep a finished host alive: the exit hook writes them.
      this.flushTimer.unref();
    }
  }

  /** Writes every queued record now; a record that cannot be encoded is counted as lost. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.queued.length === 0) return;
    const records = this.queued;
    this.queued = [];
    const frames: Buffer[] = [];
    for (const record of records) {
      try {
        frames.push(encodeRecord(record));
      } catch {
        this.lostRecords++;
      }
    }
    try {
      this.write(Buffer.concat(frames));
    } catch (error) {
      this.lostRecords += frames.length;
      throw error;
    }
  }

  close(): void {
    process.off('exit', this.flushOnExit);
    try {
      this.flushQuietly();
    } finally {
      closeSync(this.fd);
    }
  }

  /** Flushes, counting rather than throwing what could not be written. */
  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      // Counted in `lost` by flush.
    }
  }

  private write(bytes: Buffer): void {
    let written = 0;
    while (written < bytes.length) written += writeSync(this.fd, bytes, written);
  }
}
