// A session log read: a file a frame at a time (MAGIC | payload length, u32 LE | CRC-32 of the
// payload, u32 LE | msgpack payload), never whole, and only as a regular file, never through a
// symlink nor blocking (a FIFO would wait forever); what cannot be read is a warning, never a throw.
// Damage is skipped to the next MAGIC whose frame checks out, the checksums of failing frames within
// a budget of twice the file's size. A frame that begins inside a damaged record whose header was
// read (the span its length claims) is taken only if it runs past that span: a frame planted in
// the record's payload (a tool's snapshot, say) never is, but a record after bytes cut from the
// damaged one still is. A session is read in two passes (see readLogEntries). Reading yields
// `undefined` (a Turn) every few records and every MiB of damage searched, where a caller may let
// the event loop turn (see inTurns).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { crc32 } from 'node:zlib';
import { listQuietly, sessionLogs } from './session-files.js';
import { decodeRecord, outlineRecord, type SessionRecord } from './session-record.js';

export const MAGIC = Buffer.from('MPR1', 'latin1');
export const HEADER_BYTES = 12;
/** Largest record length believed when reading (older logs were written without a bound). */
const MAX_READ_RECORD_BYTES = 256 * 1024 * 1024;
/** Checksum bytes frames that fail may cost beyond twice the file's size. */
const BUDGET_SLACK_BYTES = 1024 * 1024;
/** Bytes read ahead at a time while looking for the next frame; the frames found in them are taken from them. */
const SCAN_WINDOW_BYTES = 64 * 1024;
/** Bytes searched or checked for the next frame, or of records outlined, between two turns. */
const TURN_BYTES = 1024 * 1024;
/** Records outlined between two turns (a turn after each one cost the outline 8% of its time). */
const TURN_RECORDS = 64;

/** A log file open for reading, its size when opened, and which file it is (a rename keeps them). */
interface LogFile {
  path: string;
  fd: number;
  size: number;
  dev: number;
  ino: number;
}

/** What reading a log file found: where its last intact frame ends; `unreadable` when it exists but cannot be read. */
export interface LogEnd {
  validBytes: number;
  unreadable?: true;
}

/** A frame read, or why there is none; `claimedEnd`: where a damaged frame whose header was read says it ends. */
type Attempt = { payload: Buffer } | { problem: string; claimedEnd?: number };

/**
 * Where a search for the next intact frame ended: at that frame (its payload), or at the end of the file (`gaveUp`:
 * the budget ran out); `more`: it searched TURN_BYTES and goes on from `at`.
 */
interface Search {
  at: number;
  payload?: Buffer;
  gaveUp?: true;
  more?: true;
}

export const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

/** Opens `path`; a missing file or one that cannot be read (after a warning) is its LogEnd. */
function openLogFile(path: string, warn: (line: string) => void): LogFile | LogEnd {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    const stats = fstatSync(fd);
    if (stats.isFile()) return { path, fd, size: stats.size, dev: stats.dev, ino: stats.ino };
    warn(`${path}: not a regular file; skipped`);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return { validBytes: 0 };
    warn(code === 'ELOOP' ? `${path}: not a regular file; skipped` : `${path}: cannot be read (${code})`);
  }
  if (fd !== undefined) closeSync(fd);
  return { validBytes: 0, unreadable: true };
}

class FrameReader {
  /** Checksum bytes that frames failing their check may still cost. */
  private budget: number;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  /** What the last scan read ahead (its buffer made by the first scan), and where in the file it starts. */
  private scanBuffer: Buffer | undefined;
  private window: Buffer = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    private readonly fd: number,
    private readonly size: number,
  ) {
    this.budget = 2 * size + BUDGET_SLACK_BYTES;
  }

  /** The frame at `offset`, its checksum checked, or why there is none; one that ends by `endsPast` is none. */
  frameAt(offset: number, endsPast = 0): Attempt {
    if (this.size - offset < HEADER_BYTES) return { problem: 'a torn record header' };
    this.fill(this.header, offset);
    if (!this.header.subarray(0, 4).equals(MAGIC)) return { problem: 'no record starts here' };
    const length = this.header.readUInt32LE(4);
    if (length > MAX_READ_RECORD_BYTES) return { problem: `a record length of ${length} bytes` };
    const claimedEnd = Math.min(offset + HEADER_BYTES + length, this.size);
    if (offset + HEADER_BYTES + length <= endsPast) return { problem: 'a frame inside a damaged record' };
    if (this.size - offset - HEADER_BYTES < length)
      return { problem: 'a torn record (the file ends inside it)', claimedEnd };
    if (length > this.budget) return { problem: 'a record not checked: damage past what is searched', claimedEnd };
    const expected = this.header.readUInt32LE(8);
    const payload = Buffer.allocUnsafe(length);
    this.fill(payload, offset + HEADER_BYTES);
    if (crc32(payload) !== expected) {
      this.budget -= length;
      return { problem: 'a record whose checksum does not match', claimedEnd };
    }
    return { payload };
  }

  /**
   * The next intact frame at or after `from`; the end of the file when none is, or when the budget ran out; or where
   * to search on from once TURN_BYTES were searched or checked. Reads ahead into a window kept for the next call, so
   * skipping damage reads each byte of the file about once. A frame that ends by `endsPast` is not taken (nor its
   * checksum computed).
   */
  nextFrame(from: number, endsPast = 0): Search {
    const budgetAtStart = this.budget;
    let searched = 0;
    const stepDone = (): boolean => searched + budgetAtStart - this.budget >= TURN_BYTES;
    for (let start = from; this.size - start >= MAGIC.length;) {
      const view = this.windowFrom(start);
      for (let at = view.indexOf(MAGIC); at !== -1; at = view.indexOf(MAGIC, at + 1)) {
        if (this.budget <= 0) return { at: this.size, gaveUp: true };
        const attempt = this.frameAt(start + at, endsPast);
        if ('payload' in attempt) return { at: start + at, payload: attempt.payload };
        if (stepDone()) return { at: start + at + 1, more: true };
      }
      if (view.length < MAGIC.length || start + view.length >= this.size) break;
      // A MAGIC cut by the window's end is found in the next one.
      start += view.length - (MAGIC.length - 1);
      searched += view.length;
      if (stepDone()) return { at: start, more: true };
    }
    return { at: this.size };
  }

  /** The window's bytes from `start` on; read ahead from `start` first unless the window holds a MAGIC's worth of them. */
  private windowFrom(start: number): Buffer {
    const at = start - this.windowStart;
    if (at >= 0 && this.window.length - at >= MAGIC.length) return this.window.subarray(at);
    this.scanBuffer ??= Buffer.allocUnsafe(Math.min(SCAN_WINDOW_BYTES, this.size));
    const wanted = this.scanBuffer.subarray(0, Math.min(this.scanBuffer.length, this.size - start));
    this.window = this.scanBuffer.subarray(0, this.read(wanted, start));
    this.windowStart = start;
    return this.window;
  }

  /** Fills `into` with the file's bytes at `position`: copied from the window when it holds them all, else read. */
  private fill(into: Buffer, position: number): void {
    const at = position - this.windowStart;
    if (at >= 0 && at + into.length <= this.window.length) this.window.copy(into, 0, at, at + into.length);
    else this.read(into, position);
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

/** One step of reading a session: a record, or a warning about what was skipped or left out. */
export type SessionEntry = { record: SessionRecord } | { warning: string };
/** Yielded while a log is outlined (see TURN_BYTES): a caller may let the event loop turn here. */
export type Turn = undefined;

/** How long a read runs before `inTurns` lets the event loop turn (the config walk's slice, too). */
export const SLICE_MS = 5;

/** Runs `steps` to its end at once, past its turns. */
export function atOnce<T, R>(steps: Generator<T | Turn, R>): R {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** What `steps` yields, letting the event loop turn every SLICE_MS; `break` or aborting `signal` ends `steps` too. */
export async function* inTurns<T>(steps: Generator<T | Turn, unknown>, signal?: AbortSignal): AsyncGenerator<T, void> {
  let sliceStartedAt = performance.now();
  for (const step of steps) {
    if (performance.now() - sliceStartedAt >= SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStartedAt = performance.now();
    }
    if (signal?.aborted) return;
    if (step !== undefined) yield step;
  }
}

/** A session read whole: every record, and every warning, and how its main log ends. */
export interface SessionReadout extends LogEnd {
  records: SessionRecord[];
  /** What was skipped while reading, with file and offset, and what records left out. */
  warnings: string[];
}

/** The warning for a record skipped at `offset` of the log `path`. */
const skippedRecord = (path: string, offset: number, problem: string): string =>
  `${path}: skipped the record at offset ${offset}: ${problem}`;

/** Opens the log `path`, added to `files` (for the caller to close) when it can be read; yields why it cannot. */
function* openLog(path: string, files: LogFile[]): Generator<{ warning: string }, LogFile | LogEnd> {
  const warnings: string[] = [];
  const file = openLogFile(path, (warning) => void warnings.push(warning));
  if ('fd' in file) files.push(file);
  for (const warning of warnings) yield { warning };
  return file;
}

/**
 * Outlines each intact record of an opened log in file order for `visit`, its body not decoded; yields a warning for
 * what lies between them, and a turn every TURN_RECORDS records or TURN_BYTES read. Returns how the file ends.
 */
function* outlineLog(
  file: LogFile | LogEnd,
  visit: (offset: number, start: number, finish: number) => void,
): Generator<{ warning: string } | Turn, LogEnd> {
  if (!('fd' in file)) return file;
  const path = file.path;
  const reader = new FrameReader(file.fd, file.size);
  let offset = 0;
  let validBytes = 0;
  let found: Buffer | undefined;
  let turnRecords = 0;
  let turnOffset = 0;
  try {
    while (offset < file.size) {
      const attempt: Attempt = found ? { payload: found } : reader.frameAt(offset);
      found = undefined;
      if ('payload' in attempt) {
        const outline = outlineRecord(attempt.payload);
        if ('problem' in outline) yield { warning: skippedRecord(path, offset, outline.problem) };
        else visit(offset, outline.finishedAt - outline.durationMs, outline.finishedAt);
        offset = validBytes = offset + HEADER_BYTES + attempt.payload.length;
        if (++turnRecords === TURN_RECORDS || offset - turnOffset >= TURN_BYTES) {
          turnRecords = 0;
          turnOffset = offset;
          yield;
        }
        continue;
      }
      // What a damaged record's header claimed is that record's: a frame inside it must run past it.
      let next = reader.nextFrame(offset + 1, attempt.claimedEnd);
      while (next.more) {
        yield;
        next = reader.nextFrame(next.at, attempt.claimedEnd);
      }
      const problem = next.gaveUp
        ? `${attempt.problem}; the rest of the file is damage past what is searched`
        : attempt.problem;
      yield { warning: `${path}: skipped ${next.at - offset} bytes at offset ${offset}: ${problem}` };
      offset = next.at;
      found = next.payload;
    }
    return { validBytes };
  } catch (error) {
    yield { warning: `${path}: cannot be read (${errorCode(error)})` };
    return { validBytes: 0, unreadable: true };
  }
}

/** The segments of the main log `mainLog` on disk now that `listed` does not name: begun since it was listed. */
function segmentsSince(mainLog: string, listed: string[]): string[] {
  const dir = dirname(mainLog);
  const known = new Set(listed);
  const paths = listQuietly(dir).map((name) => join(dir, name));
  const { segments } = sessionLogs(paths, basename(mainLog, '.log'));
  return segments.map((segment) => segment.path).filter((path) => !known.has(path));
}

/**
 * The entries of a main log (its segments in the order written, the one being written last) and its writers' logs:
 * the warnings of the first pass as they are found, then each record in start order, followed by the warnings
 * decoding it gave. Records with the same times keep the order the main log's segments were written in. Returns what
 * the outline of the segment being written found. The segment being written is opened first, then its directory is
 * listed again: a roll-over since the caller listed it left a segment read here too, and the file opened is read once
 * whatever it is named by then. The files stay open between the passes, so a segment renamed or a log begun meanwhile
 * changes nothing read; ending the iteration early closes every file.
 */
export function* readLogEntries(
  mainLogSegments: string[],
  writerLogs: string[],
): Generator<SessionEntry | Turn, LogEnd> {
  const mainLog = mainLogSegments.at(-1)!;
  const files: LogFile[] = [];
  // Each readable record's file (its index), offset, start and finish: four numbers, no object, per record.
  const places: number[] = [];
  const outline = (file: LogFile | LogEnd): Generator<{ warning: string } | Turn, LogEnd> => {
    const index = 'fd' in file ? files.indexOf(file) : -1;
    return outlineLog(file, (offset, start, finish) => places.push(index, offset, start, finish));
  };
  try {
    const main = yield* openLog(mainLog, files);
    const isMain = (file: LogFile | LogEnd): boolean =>
      'fd' in main && 'fd' in file && file.dev === main.dev && file.ino === main.ino;
    for (const path of [...mainLogSegments.slice(0, -1), ...segmentsSince(mainLog, mainLogSegments)]) {
      const segment = yield* openLog(path, files);
      if (!isMain(segment)) yield* outline(segment);
    }
    const mainEnd = yield* outline(main);
    for (const path of [...writerLogs].sort()) yield* outline(yield* openLog(path, files));
    // By start, then finish, then the order read.
    const order = Uint32Array.from({ length: places.length / 4 }, (_, i) => 4 * i);
    order.sort((a, b) => places[a + 2]! - places[b + 2]! || places[a + 3]! - places[b + 3]! || a - b);
    for (const i of order) {
      const file = files[places[i]!]!;
      const offset = places[i + 1]!;
      const frame = new FrameReader(file.fd, file.size).frameAt(offset);
      const decoded = 'payload' in frame ? decodeRecord(frame.payload) : frame;
      if ('problem' in decoded) {
        yield { warning: skippedRecord(file.path, offset, decoded.problem) };
        continue;
      }
      yield decoded;
      const { record } = decoded;
      for (const line of record.dropped ?? [])
        yield { warning: `${file.path}: call ${record.callId} (${record.tool}): ${line}` };
    }
    return mainEnd;
  } finally {
    for (const file of files) closeSync(file.fd);
  }
}

/** Opens the log `path` (added to `files`) and outlines it. */
function* outlineOpened(
  path: string,
  files: LogFile[],
  visit: (offset: number, start: number, finish: number) => void,
): Generator<{ warning: string } | Turn, LogEnd> {
  return yield* outlineLog(yield* openLog(path, files), visit);
}

/** Damage lines an outline keeps; past them it counts. */
const MAX_OUTLINE_DAMAGE = 100;

/** What listing a log needs of it: its records' count and first start, and its damage; no body is decoded. */
export interface SessionLogOutline extends LogEnd {
  /** Readable records. */
  calls: number;
  /** When its earliest readable record's call started (ms since the epoch), if one has a valid time. */
  firstStart?: number;
  /** What was skipped or could not be read (the first MAX_OUTLINE_DAMAGE, then a count); a record that left something out is not damage. */
  damage: string[];
}

/** Reads one log file's outline: each record's shape and times, its bodies skipped; memory bounded by its largest record. Never throws. */
export function outlineSessionLog(path: string): SessionLogOutline {
  return atOnce(outlineSteps(path));
}

/** `outlineSessionLog`, with its turns (see outlineLog). */
export function* outlineSteps(path: string): Generator<Turn, SessionLogOutline> {
  const outline: SessionLogOutline = { calls: 0, damage: [], validBytes: 0 };
  let damaged = 0;
  const files: LogFile[] = [];
  try {
    const lines = outlineOpened(path, files, (_offset, start) => {
      outline.calls++;
      // Times a damaged but checksum-valid record made impossible (1e300) are no start time.
      if (!Number.isNaN(new Date(start).getTime()) && (outline.firstStart === undefined || start < outline.firstStart))
        outline.firstStart = start;
    });
    for (let next = lines.next(); ; next = lines.next()) {
      if (next.done) {
        const more = damaged - MAX_OUTLINE_DAMAGE;
        if (more > 0) outline.damage.push(`${path}: ${more} more damaged places`);
        return { ...outline, ...next.value };
      }
      if (next.value === undefined) yield;
      else if (damaged++ < MAX_OUTLINE_DAMAGE) outline.damage.push(next.value.warning);
    }
  } finally {
    for (const file of files) closeSync(file.fd);
  }
}
