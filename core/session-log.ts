// A session's log written: one framed record (see session-stream.ts) per finished call. One process
// writes `<id>.log` (see session-lock.ts); a second process on the same session writes a file of its
// own beside it, read together with it. Past its segment size, `<id>.log` is renamed to the next
// segment `<id>.<n>.log`, so the retention rule can remove the oldest part of a session in use.
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  linkSync,
  openSync,
  readSync,
  renameSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { acquireSessionLock, unlinkQuietly, type SessionLock } from './session-lock.js';
import {
  errorCode,
  HEADER_BYTES,
  MAGIC,
  atOnce,
  outlineSteps,
  readLogEntries,
  SLICE_MS,
  type LogEnd,
  type SessionEntry,
  type SessionReadout,
  type Turn,
} from './session-stream.js';
import { encodeBounded, MAX_RECORD_BYTES, type SessionRecord } from './session-record.js';
import { makeDirectory } from './make-directory.js';
import { listQuietly, sessionLogPath, sessionLogs } from './session-files.js';
import { DEFAULT_SESSION_SEGMENT_BYTES } from './host-options.js';

export { MAX_RECORD_BYTES, type SessionRecord } from './session-record.js';
export { sessionLogPath } from './session-files.js';
export type { SessionEntry, SessionReadout } from './session-stream.js';

/** The most a write cut short leaves after the last intact record: one record, framed. */
const MAX_TORN_TAIL_BYTES = HEADER_BYTES + MAX_RECORD_BYTES;
/** How a log is opened to write: never through a symlink planted in its place. */
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * Why the `tail` bytes of `path` after `offset` (its last intact record) are not what a write cut short leaves —
 * the start of one framed record, running past the end of the file, with no other record begun after it — or
 * undefined when they are.
 */
function notTorn(path: string, offset: number, tail: number): string | undefined {
  if (tail > MAX_TORN_TAIL_BYTES) return 'are more than a torn write leaves';
  const bytes = Buffer.alloc(tail);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    readSync(fd, bytes, 0, tail, offset);
  } finally {
    closeSync(fd);
  }
  const magic = Math.min(tail, MAGIC.length);
  if (!bytes.subarray(0, magic).equals(MAGIC.subarray(0, magic))) return 'do not begin like a record';
  if (bytes.indexOf(MAGIC, 1) !== -1) return 'hold more than one record';
  if (tail < HEADER_BYTES) return undefined;
  const length = bytes.readUInt32LE(MAGIC.length);
  if (length > MAX_RECORD_BYTES) return 'begin a record longer than any written';
  return HEADER_BYTES + length > tail ? undefined : 'hold a whole record that does not check out';
}

/**
 * A session's records one at a time, from its log (its older segments, then the segment being written) and its
 * writers' logs beside it, in the order the calls started (then finished); warnings as they are found. Memory: one
 * record, and a few numbers per record for the order.
 */
export function* sessionEntries(stateDir: string, sessionId: string): Generator<SessionEntry | Turn, LogEnd> {
  const dir = join(stateDir, 'sessions');
  const paths = listQuietly(dir).map((name) => join(dir, name));
  const { segments, writers } = sessionLogs(paths, sessionId);
  const oldest = segments[0]?.number;
  if (oldest !== undefined && oldest > 1) {
    yield {
      warning: `session ${sessionId}: the first ${oldest - 1} segment${oldest === 2 ? '' : 's'} of its log ${oldest === 2 ? 'was' : 'were'} removed by the retention rule; the calls ${oldest === 2 ? 'it' : 'they'} held are not shown`,
    };
  }
  const mainLogSegments = [...segments.map((segment) => segment.path), sessionLogPath(stateDir, sessionId)];
  return yield* readLogEntries(mainLogSegments, writers);
}

/** Every record of a session at once (`sessionEntries`, collected: what `resume` returns): it holds every record. */
export function readSession(stateDir: string, sessionId: string): SessionReadout {
  const entries = sessionEntries(stateDir, sessionId);
  const readout: SessionReadout = { records: [], warnings: [], validBytes: 0 };
  for (;;) {
    const next = entries.next();
    if (next.done) return { ...readout, ...next.value };
    if (next.value === undefined) continue;
    if ('record' in next.value) readout.records.push(next.value.record);
    else readout.warnings.push(next.value.warning);
  }
}

/** The record framed for the log, bounded to MAX_RECORD_BYTES (see session-record.ts). */
export function encodeRecord(record: SessionRecord): Buffer {
  return framed(encodeBounded(record));
}

/** `payload` in a frame: MAGIC, its length and its CRC-32 (what a reader checks before it decodes). */
export function framed(payload: Buffer): Buffer {
  const header = Buffer.allocUnsafe(HEADER_BYTES - MAGIC.length);
  header.writeUInt32LE(payload.length, 0);
  header.writeUInt32LE(crc32(payload), 4);
  return Buffer.concat([MAGIC, header, payload]);
}

/** How long queued records may wait before they are written together. */
const FLUSH_DELAY_MS = 20;
/** Queued records past which the queue is written at once rather than when the delay ends. */
const FLUSH_RECORDS = 1000;
/** Frames are gathered into writes of about this size (a large record is one write of its own). */
const WRITE_BATCH_BYTES = 8 * 1024 * 1024;
/** Segment numbers a roll-over tries (each past the highest on disk) before the log grows on instead. */
const MAX_SEGMENT_LINK_ATTEMPTS = 8;

/** Where a log writes: its file, the session's lock when it is the main log, what was wrong when opened, segments. */
interface LogTarget {
  path: string;
  fd: number;
  lock?: SessionLock | undefined;
  /** What was wrong with the file when it was opened, and where this writer writes if not to the main log. */
  warnings: string[];
  /** For the main log: its segment size, the next segment's number, and what runs after a roll-over. */
  segments?: { bytes: number; next: number; after?: (() => void) | undefined };
}

/** The logs a process has open, written (and their locks released) by one exit hook when it exits. */
const openLogs = new Set<SessionLog>();
let exitHooked = false;

/**
 * Opens the session's log for appending, with turns while its outline is read: the lock's holder (taking it,
 * or given it as `held`) cuts a torn tail left by a writer that is gone; a process finding it held by a live one
 * writes a file beside it. Throws for an fs failure (an unusable state dir).
 */
function* openedLog(
  stateDir: string,
  sessionId: string,
  held: SessionLock | undefined,
  segments: { bytes?: number; onRollOver?: () => void },
): Generator<Turn, LogTarget> {
  const main = sessionLogPath(stateDir, sessionId);
  makeDirectory(join(stateDir, 'sessions'), 0o700);
  const taken = held ? { lock: held } : acquireSessionLock(`${main}.lock`);
  const besideMain = (why: string): LogTarget => {
    const own = join(stateDir, 'sessions', `${sessionId}.${process.pid}-${randomBytes(3).toString('hex')}.log`);
    const fd = openSync(own, 'ax', 0o600);
    return { path: own, fd, warnings: [`${why}; this host's calls go to ${own}, read with it`] };
  };
  if ('heldBy' in taken) return besideMain(`${main} is being written by process ${taken.heldBy}`);
  try {
    // Its outline is enough to find where the last intact record ends: no record is decoded.
    const existing = yield* outlineSteps(main);
    // A log that exists but cannot be read (too large, a symlink, unreadable) is never cut:
    // what it holds may be all there is of the session.
    if (existing.unreadable) {
      taken.lock.release();
      return besideMain(existing.damage[0] ?? `${main} cannot be read`);
    }
    // Non-blocking, so a FIFO named like the log fails (ENXIO) instead of waiting for a reader.
    const fd = openSync(main, APPEND | constants.O_NONBLOCK, 0o600);
    // What was outlined may have been swapped since for a FIFO that has a reader.
    const opened = fstatSync(fd);
    if (!opened.isFile()) {
      closeSync(fd);
      throw new Error(`${main} is not a regular file`);
    }
    const tail = opened.size - existing.validBytes;
    // Only what a write cut short can leave is cut: the start of one framed record, running past the end of the
    // file. Anything else (a whole record damaged, more bytes) may be all there is of calls this reader cannot
    // make out, and stays, read with its warning.
    const why = tail > 0 ? notTorn(main, existing.validBytes, tail) : undefined;
    if (why !== undefined) {
      closeSync(fd);
      taken.lock.release();
      return besideMain(`${main}: ${tail} bytes after its last intact record ${why}; it is not cut`);
    }
    if (tail > 0) ftruncateSync(fd, existing.validBytes);
    const rollOver = {
      bytes: segments.bytes ?? DEFAULT_SESSION_SEGMENT_BYTES,
      next: (sessionLogs(listQuietly(join(stateDir, 'sessions')), sessionId).segments.at(-1)?.number ?? 0) + 1,
      after: segments.onRollOver,
    };
    return { path: main, fd, lock: taken.lock, warnings: existing.damage, segments: rollOver };
  } catch (error) {
    taken.lock.release();
    throw error;
  }
}

/**
 * The open log of the current session. `enqueue` queues a record, and the queue is written in one write within
 * FLUSH_DELAY_MS (per-call writes cost a warm call a fifth of its time), or on `flush`, `close` and process exit;
 * `append` writes one at once. A queued record is encoded when written: it must not change after. A failed write (a
 * full disk) is cut back to the last record it wrote whole; the records after it are counted in `lost`. A log opened
 * with `openInTurns` outlines what the file holds a slice at a time, its records queued meanwhile.
 */
export class SessionLog {
  private queued: SessionRecord[] = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** Records that could not be encoded or written (a full disk, say). */
  lost = 0;
  /** Why the last record was lost, when one was. */
  lastFailure: string | undefined;
  /** The file written: the main log, or this writer's own beside it. */
  path = '';
  private fd = -1;
  private lock: SessionLock | undefined;
  /** What was wrong with the file when it was opened, and where this writer writes if not to the main log. */
  warnings: string[] = [];
  private segments: LogTarget['segments'];
  /** Where the last intact record written ends: a failed write is cut back to here. */
  private goodBytes = 0;
  /** Set while the bytes of a failed write could not be cut off yet. */
  private torn = false;
  private closed = false;
  /** Until the log is open: the steps of its opening left (see openInTurns). */
  private opening: Generator<Turn, LogTarget> | undefined;
  /** Why the log could not be opened, when its opening failed after it began. */
  private openFailure: string | undefined;
  /** Begins the opening again after it failed (the state dir may have been mended), and names the state dir. */
  private reopen: { stateDir: string; opening: () => Generator<Turn, LogTarget> } | undefined;

  private constructor(from: LogTarget | Generator<Turn, LogTarget>) {
    if ('fd' in from) this.begin(from);
    else this.opening = from;
    openLogs.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const log of openLogs) log.flushOnExit();
      });
    }
  }

  /**
   * Opens the session's log for appending (see openedLog). The main log continues in a new segment past
   * `segments.bytes` (default DEFAULT_SESSION_SEGMENT_BYTES), then runs `segments.onRollOver` (where the host applies
   * the retention rule). Throws for an fs failure (an unusable state dir).
   */
  static open(
    stateDir: string,
    sessionId: string,
    held?: SessionLock,
    segments: { bytes?: number; onRollOver?: () => void } = {},
  ): SessionLog {
    return new SessionLog(atOnce(openedLog(stateDir, sessionId, held, segments)));
  }

  /**
   * `open`, returning before the log's outline is read: it is read in slices of a few ms, the event loop turning
   * between them, and the records queued meanwhile are written after it, in order. `flush`, `close` and process exit
   * read the rest of it at once. Throws for an fs failure found before the outline begins (an unusable state dir); one
   * found after it counts the records queued lost, and the next record queued begins the opening again.
   */
  static openInTurns(
    stateDir: string,
    sessionId: string,
    held?: SessionLock,
    segments: { bytes?: number; onRollOver?: () => void } = {},
  ): SessionLog {
    const steps = openedLog(stateDir, sessionId, held, segments);
    const first = steps.next();
    if (first.done) return new SessionLog(first.value);
    const log = new SessionLog(steps);
    // A failed opening released the lock it was given: the next one takes it again.
    log.reopen = { stateDir, opening: () => openedLog(stateDir, sessionId, undefined, segments) };
    void log.openSliceBySlice();
    return log;
  }

  private begin(target: LogTarget): void {
    ({ path: this.path, fd: this.fd, lock: this.lock, warnings: this.warnings, segments: this.segments } = target);
    this.goodBytes = fstatSync(this.fd).size;
  }

  /** Runs the opening's steps, SLICE_MS at a time, then writes what was queued meanwhile. */
  private async openSliceBySlice(): Promise<void> {
    while (this.opening) {
      await new Promise((resolve) => setImmediate(resolve));
      const sliceStartedAt = performance.now();
      while (this.opening && performance.now() - sliceStartedAt < SLICE_MS) this.openingStep();
    }
    if (this.queued.length > 0) this.flushQuietly();
  }

  /** The opening's next step; a failure is counted against the records queued until the next is queued. */
  private openingStep(): void {
    try {
      const next = this.opening!.next();
      if (!next.done) return;
      this.opening = undefined;
      this.begin(next.value);
    } catch (error) {
      this.opening = undefined;
      this.openFailure = `the session log cannot be opened in ${this.reopen!.stateDir} (${errorCode(error)}); the calls that ended meanwhile are not recorded`;
    }
  }

  /** Writes a record now; throws what writing it threw (a record that cannot be encoded is only counted). */
  append(record: SessionRecord): void {
    this.queued.push(record);
    this.flush();
  }

  /** Queues a record to be written with the others within FLUSH_DELAY_MS. */
  enqueue(record: SessionRecord): void {
    if (this.closed) {
      this.lose(1, `call ${record.callId} ended after the log was closed`);
      return;
    }
    this.queued.push(record);
    if (this.openFailure !== undefined) {
      this.openFailure = undefined;
      this.opening = this.reopen!.opening();
      void this.openSliceBySlice();
    }
    // While the log opens, its records wait for the opening to end (see openSliceBySlice).
    if (this.opening) return;
    if (this.queued.length >= FLUSH_RECORDS) this.flushQuietly();
    else if (this.flushTimer === undefined) {
      this.flushTimer = setTimeout(() => this.flushQuietly(), FLUSH_DELAY_MS);
      // Pending records never keep a finished host alive: the exit hook writes them.
      this.flushTimer.unref();
    }
  }

  /** Writes every queued record now; a record that cannot be encoded or written is counted as lost. */
  flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    while (this.opening) this.openingStep();
    if (this.openFailure !== undefined) {
      const records = this.queued.splice(0);
      if (records.length > 0) this.lose(records.length, this.openFailure);
      return;
    }
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let failure: Error | undefined;
    const writeBatch = (): void => {
      try {
        if (batch.length > 0) this.write(batch);
      } catch (error) {
        failure ??= error as Error;
      }
      batch = [];
      batchBytes = 0;
    };
    for (const record of this.queued.splice(0)) {
      let frame: Buffer;
      try {
        frame = encodeRecord(record);
      } catch (error) {
        this.lose(1, `call ${record.callId} could not be encoded (${(error as Error).message})`);
        continue;
      }
      // A batch never spans two segments: the one it would pass goes out first.
      if (batchBytes + frame.length > WRITE_BATCH_BYTES || this.passesSegment(batchBytes + frame.length)) writeBatch();
      batch.push(frame);
      batchBytes += frame.length;
    }
    writeBatch();
    if (failure !== undefined) throw failure;
  }

  close(): void {
    if (this.closed) return;
    openLogs.delete(this);
    try {
      this.flushQuietly();
    } finally {
      this.closed = true;
      if (this.fd !== -1) closeSync(this.fd);
      this.lock?.release();
    }
  }

  private flushOnExit(): void {
    this.flushQuietly();
    this.lock?.release();
  }

  /** Flushes, counting rather than throwing what could not be written. */
  private flushQuietly(): void {
    try {
      this.flush();
    } catch {
      // Counted in `lost` by flush.
    }
  }

  /**
   * Writes `frames` in one write; on failure keeps the frames written whole and cuts the file back to the last of
   * them, counting the others lost.
   */
  private write(frames: Buffer[]): void {
    if (this.torn && !this.cutBack()) {
      const message = `the bytes of an earlier failed write to ${this.path} could not be removed`;
      this.lose(frames.length, message);
      throw new Error(message);
    }
    const bytes = Buffer.concat(frames);
    // A segment's first write always goes in it, however large: a record is never split.
    if (this.goodBytes > 0 && this.passesSegment(bytes.length)) this.rollOver();
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
      this.goodBytes += bytes.length;
    } catch (error) {
      let whole = 0;
      for (const frame of frames) {
        if (written < frame.length) break;
        written -= frame.length;
        this.goodBytes += frame.length;
        whole++;
      }
      this.lose(frames.length - whole, `${errorCode(error)} writing ${this.path}`);
      this.torn = true;
      this.cutBack();
      throw error;
    }
  }

  /** Whether `bytes` more would take the main log past its segment size. */
  private passesSegment(bytes: number): boolean {
    return this.segments !== undefined && this.goodBytes + bytes > this.segments.bytes;
  }

  /**
   * Starts a new log and keeps the old one as the next segment. The new log is created first, under a writer's
   * name (`<id>.<pid>-<hex>.log`: if this process dies before the rename, an empty log read as nothing); the old
   * one is linked to the segment's name, then the new one renamed over `<id>.log` (so `<id>.log` always exists).
   * If any step fails, the log keeps only its own name and grows on: it is never written under a segment's name,
   * which the retention rule may remove.
   */
  private rollOver(): void {
    const segments = this.segments!;
    const fresh = this.path.replace(/log$/, `${process.pid}-${randomBytes(3).toString('hex')}.log`);
    let fd: number;
    try {
      fd = openSync(fresh, APPEND | constants.O_EXCL, 0o600);
    } catch {
      return; // No new log can begin (no inodes, no fds): the log grows on.
    }
    let segment: string;
    try {
      segment = this.linkNextSegment();
    } catch {
      closeSync(fd);
      unlinkQuietly(fresh);
      return;
    }
    try {
      renameSync(fresh, this.path);
    } catch {
      // The log is still named as the log; the segment was only a second name for it.
      unlinkQuietly(segment);
      closeSync(fd);
      unlinkQuietly(fresh);
      return;
    }
    segments.next++;
    closeSync(this.fd);
    this.fd = fd;
    this.goodBytes = 0;
    try {
      segments.after?.();
    } catch {
      // What runs after a roll-over (the retention rule) never costs a record.
    }
  }

  /**
   * Gives the log the next segment's name as well (a hard link: never replacing a segment another writer made) and
   * returns it; a number taken already moves `next` past the highest segment there. Throws when none can be linked.
   */
  private linkNextSegment(): string {
    const segments = this.segments!;
    for (let attempt = 1; ; attempt++) {
      const segment = this.path.replace(/log$/, `${String(segments.next).padStart(6, '0')}.log`);
      try {
        linkSync(this.path, segment);
        return segment;
      } catch (error) {
        if (errorCode(error) !== 'EEXIST' || attempt === MAX_SEGMENT_LINK_ATTEMPTS) throw error;
        segments.next = Math.max(segments.next, this.highestSegment()) + 1;
      }
    }
  }

  /** The number of the session's highest segment on disk, 0 when there is none. */
  private highestSegment(): number {
    const dir = dirname(this.path);
    return sessionLogs(listQuietly(dir), basename(this.path, '.log')).segments.at(-1)?.number ?? 0;
  }

  private lose(records: number, why: string): void {
    this.lost += records;
    this.lastFailure = why;
  }

  private cutBack(): boolean {
    try {
      ftruncateSync(this.fd, this.goodBytes);
      this.torn = false;
      return true;
    } catch {
      return false;
    }
  }
}
