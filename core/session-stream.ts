// A session's records read one at a time, in the order the calls started, so reading a session
// of any length holds one record at a time. Each log file is written in the order calls
// finished, and a session may have several (segments, writers beside the main log), so the order
// is found first: one pass outlines every frame (its times and place; no body is decoded) and
// keeps four numbers per record; a second pass reads each record again by its place, in start
// order, and decodes it only then. The files stay open between the passes, so a segment renamed
// or a log begun meanwhile by a live writer changes nothing read.
import { closeSync } from 'node:fs';
import { frameAt } from './session-frames.js';
import { logFileEvents, openLogFile, type OpenLogFile } from './session-log-file.js';
import { decodeRecord, outlineRecord, type SessionRecord } from './session-record.js';

/** One step of reading a session: a record, or a warning about what was skipped or left out. */
export type SessionEntry = { record: SessionRecord } | { warning: string };

/** A session read whole: every record, and every warning. */
export interface SessionReadout {
  records: SessionRecord[];
  /** What was skipped while reading, with file and offset, and what records left out. */
  warnings: string[];
  /** Where the last intact record of the (last) file read ends. */
  validBytes: number;
  /** The (main) file exists but could not be read as a log: nothing may be cut from it. */
  unreadable?: true;
}

/** What a stream says of the main log once it has ended. */
export type MainLogEnd = Pick<SessionReadout, 'validBytes' | 'unreadable'>;

/** The warning for a record skipped at `offset` of the log `path`. */
export const skippedRecord = (path: string, offset: number, problem: string): string =>
  `${path}: skipped the record at offset ${offset}: ${problem}`;

/** The warnings for what a record of the log `path` left out to fit (see session-record.ts). */
export const droppedWarnings = (path: string, record: SessionRecord): string[] =>
  (record.dropped ?? []).map((line) => `${path}: call ${record.callId} (${record.tool}): ${line}`);

/** Each readable record's place and times, one array per field (numbers, not objects, per record). */
class RecordPlaces {
  readonly file: number[] = [];
  readonly offset: number[] = [];
  readonly start: number[] = [];
  readonly finish: number[] = [];

  add(file: number, offset: number, finishedAt: number, durationMs: number): void {
    this.file.push(file);
    this.offset.push(offset);
    this.start.push(finishedAt - durationMs);
    this.finish.push(finishedAt);
  }

  /** Record indices by start, then finish, then file order. */
  startOrder(): Uint32Array {
    const order = new Uint32Array(this.file.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    return order.sort((a, b) => this.start[a]! - this.start[b]! || this.finish[a]! - this.finish[b]! || a - b);
  }
}

/**
 * The entries of a main log (its segments in the order written, the one being written last) and its writers' logs:
 * the warnings of the first pass as they are found, then each record in start order, followed by the warnings
 * decoding it gave. Records with the same times keep the order the main log's segments were written in. Returns what
 * the outline of the segment being written found. Ending the iteration early closes every file.
 */
export function* readLogEntries(mainLogSegments: string[], writerLogs: string[]): Generator<SessionEntry, MainLogEnd> {
  const paths = [...mainLogSegments, ...[...writerLogs].sort()];
  const files: (OpenLogFile | undefined)[] = [];
  const places = new RecordPlaces();
  let mainEnd: MainLogEnd = { validBytes: 0 };
  try {
    for (const [index, path] of paths.entries()) {
      const openWarnings: string[] = [];
      const opened = openLogFile(path, (line) => void openWarnings.push(line));
      for (const warning of openWarnings) yield { warning };
      let end: MainLogEnd = 'unreadable' in opened ? { validBytes: 0, unreadable: true } : { validBytes: 0 };
      if ('fd' in opened) {
        files.push(opened);
        const events = logFileEvents(opened, path);
        for (let next = events.next(); ; next = events.next()) {
          if (next.done) {
            end = next.value;
            break;
          }
          const event = next.value;
          if ('warning' in event) {
            yield event;
            continue;
          }
          const outline = outlineRecord(event.frame.payload);
          if ('problem' in outline) yield { warning: skippedRecord(path, event.frame.offset, outline.problem) };
          else places.add(index, event.frame.offset, outline.finishedAt, outline.durationMs);
        }
      } else files.push(undefined);
      if (index === mainLogSegments.length - 1) mainEnd = end;
    }
    for (const i of places.startOrder()) {
      const path = paths[places.file[i]!]!;
      const file = files[places.file[i]!]!;
      const offset = places.offset[i]!;
      const frame = frameAt(file.fd, file.size, offset);
      const decoded = 'payload' in frame ? decodeRecord(frame.payload) : frame;
      if ('problem' in decoded) {
        yield { warning: skippedRecord(path, offset, decoded.problem) };
        continue;
      }
      yield { record: decoded.record };
      for (const warning of droppedWarnings(path, decoded.record)) yield { warning };
    }
    return mainEnd;
  } finally {
    for (const file of files) if (file) closeSync(file.fd);
  }
}

/** Reads every entry into one readout (what `resume` returns); it holds every record. */
export function collectEntries(entries: Generator<SessionEntry, MainLogEnd>): SessionReadout {
  const records: SessionRecord[] = [];
  const warnings: string[] = [];
  for (;;) {
    const next = entries.next();
    if (next.done) return { records, warnings, ...next.value };
    if ('record' in next.value) records.push(next.value.record);
    else warnings.push(next.value.warning);
  }
}
