// A session's records read one at a time, in the order the calls started, so reading a session
// of any length holds one record at a time. Each log file is written in the order calls
// finished, and a session may have several (segments, writers beside the main log), so the order
// is found first: one pass outlines every frame (its times and place; no body is decoded) and
// keeps four numbers per record; a second pass reads each record again by its place, in start
// order, and decodes it only then. The files stay open between the passes, so a segment renamed
// or a log begun meanwhile by a live writer changes nothing read. The outline alone is what
// listing sessions and reopening a log need.
import { closeSync } from 'node:fs';
import { frameAt, logFrames, openLogFile, type LogEnd, type LogFile } from './session-frames.js';
import { decodeRecord, outlineRecord, type SessionRecord } from './session-record.js';

/** One step of reading a session: a record, or a warning about what was skipped or left out. */
export type SessionEntry = { record: SessionRecord } | { warning: string };

/** A session read whole: every record, and every warning, and how its main log ends. */
export interface SessionReadout extends LogEnd {
  records: SessionRecord[];
  /** What was skipped while reading, with file and offset, and what records left out. */
  warnings: string[];
}

/** The warning for a record skipped at `offset` of the log `path`. */
const skippedRecord = (path: string, offset: number, problem: string): string =>
  `${path}: skipped the record at offset ${offset}: ${problem}`;

/**
 * Opens the log `path` (added to `files`, for the caller to close) and outlines each readable record for `visit`,
 * its body not decoded; yields a warning for what it skips. Returns how the file ends.
 */
function* outlineLog(
  path: string,
  files: LogFile[],
  visit: (offset: number, start: number, finish: number) => void,
): Generator<{ warning: string }, LogEnd> {
  const warnings: string[] = [];
  const file = openLogFile(path, (warning) => void warnings.push(warning));
  for (const warning of warnings) yield { warning };
  if (!('fd' in file)) return file;
  files.push(file);
  const frames = logFrames(file);
  for (let next = frames.next(); ; next = frames.next()) {
    if (next.done) return next.value;
    const frame = next.value;
    if ('warning' in frame) {
      yield frame;
      continue;
    }
    const outline = outlineRecord(frame.payload);
    if ('problem' in outline) yield { warning: skippedRecord(path, frame.offset, outline.problem) };
    else visit(frame.offset, outline.finishedAt - outline.durationMs, outline.finishedAt);
  }
}

/**
 * The entries of a main log (its segments in the order written, the one being written last) and its writers' logs:
 * the warnings of the first pass as they are found, then each record in start order, followed by the warnings
 * decoding it gave. Records with the same times keep the order the main log's segments were written in. Returns what
 * the outline of the segment being written found. Ending the iteration early closes every file.
 */
export function* readLogEntries(mainLogSegments: string[], writerLogs: string[]): Generator<SessionEntry, LogEnd> {
  const paths = [...mainLogSegments, ...[...writerLogs].sort()];
  const files: LogFile[] = [];
  // Each readable record's file (its index), offset, start and finish: four numbers, no object, per record.
  const places: number[] = [];
  let mainEnd: LogEnd = { validBytes: 0 };
  try {
    for (const [index, path] of paths.entries()) {
      const end = yield* outlineLog(path, files, (offset, start, finish) =>
        places.push(files.length - 1, offset, start, finish),
      );
      if (index === mainLogSegments.length - 1) mainEnd = end;
    }
    // By start, then finish, then the order read.
    const order = Uint32Array.from({ length: places.length / 4 }, (_, i) => 4 * i);
    order.sort((a, b) => places[a + 2]! - places[b + 2]! || places[a + 3]! - places[b + 3]! || a - b);
    for (const i of order) {
      const file = files[places[i]!]!;
      const offset = places[i + 1]!;
      const frame = frameAt(file, offset);
      const decoded = 'payload' in frame ? decodeRecord(frame.payload) : frame;
      if ('problem' in decoded) {
        yield { warning: skippedRecord(file.path, offset, decoded.problem) };
        continue;
      }
      const { record } = decoded;
      yield { record };
      for (const line of record.dropped ?? [])
        yield { warning: `${file.path}: call ${record.callId} (${record.tool}): ${line}` };
    }
    return mainEnd;
  } finally {
    for (const file of files) closeSync(file.fd);
  }
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
  const outline: SessionLogOutline = { calls: 0, damage: [], validBytes: 0 };
  let moreDamage = 0;
  const files: LogFile[] = [];
  try {
    const lines = outlineLog(path, files, (_offset, start) => {
      outline.calls++;
      // Times a damaged but checksum-valid record made impossible (1e300) are no start time.
      if (!Number.isNaN(new Date(start).getTime()) && (outline.firstStart === undefined || start < outline.firstStart))
        outline.firstStart = start;
    });
    for (let next = lines.next(); ; next = lines.next()) {
      if (next.done) {
        if (moreDamage > 0) outline.damage.push(`${path}: ${moreDamage} more damaged places`);
        return { ...outline, ...next.value };
      }
      if (outline.damage.length < MAX_OUTLINE_DAMAGE) outline.damage.push(next.value.warning);
      else moreDamage++;
    }
  } finally {
    for (const file of files) closeSync(file.fd);
  }
}
