// One logged call: its shape, the check every record read back must pass, and the bound every
// record written must fit. A record over MAX_RECORD_BYTES is never skipped or cut silently: its
// snapshot goes first, then its arguments, then the tail of its content, each named in `dropped`.
import { decodeMsgpack, encodeMsgpack } from './msgpack-codec.js';
import type { CallStatus } from './call-result.js';

/** Largest payload the log writes; whatever the host can produce fits once its snapshot is dropped. */
export const MAX_RECORD_BYTES = 64 * 1024 * 1024;

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
  /** What was left out to keep the record within MAX_RECORD_BYTES, one line each. */
  dropped?: string[];
}

const OPTIONAL_STRINGS = ['spillPath', 'title'] as const;

/** Why `value` (a decoded payload) is not a SessionRecord, or undefined when it is one. */
export function recordShapeProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'the record is not a map';
  const record = value as Record<string, unknown>;
  for (const key of ['callId', 'tool', 'status', 'content'] as const) {
    if (typeof record[key] !== 'string') return `its ${key} is not a string`;
  }
  for (const key of ['durationMs', 'finishedAt'] as const) {
    if (typeof record[key] !== 'number') return `its ${key} is not a number`;
  }
  for (const key of OPTIONAL_STRINGS) {
    if (record[key] !== undefined && typeof record[key] !== 'string') return `its ${key} is not a string`;
  }
  if (record['snapshot'] !== undefined && !(record['snapshot'] instanceof Uint8Array)) return 'its snapshot is not bytes';
  const dropped = record['dropped'];
  if (dropped !== undefined && !(Array.isArray(dropped) && dropped.every((line) => typeof line === 'string'))) return 'its dropped list is not strings';
  return undefined;
}

/** The record decoded from a payload, or why it cannot be one. */
export function decodeRecord(payload: Uint8Array): { record: SessionRecord } | { problem: string } {
  let value: unknown;
  try {
    value = decodeMsgpack(payload);
  } catch (error) {
    return { problem: `its payload does not decode (${(error as Error).message})` };
  }
  const problem = recordShapeProblem(value);
  return problem === undefined ? { record: value as SessionRecord } : { problem };
}

const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * The record's msgpack payload, at most MAX_RECORD_BYTES. `encode` (msgpack, with room
 * reserved in front) is passed in so the caller keeps its framing; it may throw for a value
 * msgpack cannot hold (a BigInt past 64 bits), which the caller counts as a lost record.
 */
export function encodeBounded(record: SessionRecord, encode: (record: SessionRecord) => Buffer, reserved: number): Buffer {
  let encoded = encode(record);
  const over = (): boolean => encoded.length - reserved > MAX_RECORD_BYTES;
  if (!over()) return encoded;
  const bounded: SessionRecord = { ...record, dropped: [...(record.dropped ?? [])] };
  const note = (line: string): void => void bounded.dropped!.push(line);
  if (bounded.snapshot !== undefined) {
    note(`snapshot of ${mib(bounded.snapshot.length)} not recorded: the record was over the ${mib(MAX_RECORD_BYTES)} limit`);
    delete bounded.snapshot;
    encoded = encode(bounded);
  }
  if (over()) {
    note(`arguments of ${mib(encodeMsgpack(bounded.args).length)} not recorded: the record was over the ${mib(MAX_RECORD_BYTES)} limit`);
    bounded.args = { $notRecorded: 'too large to record' };
    encoded = encode(bounded);
  }
  if (over()) {
    // Only a host configured with enormous inline limits gets here: keep the head of the content.
    const keep = Math.floor(MAX_RECORD_BYTES / 8);
    note(`content cut from ${bounded.content.length} to ${keep} characters: the record was over the ${mib(MAX_RECORD_BYTES)} limit`);
    bounded.content = bounded.content.slice(0, keep);
    if (bounded.title !== undefined) bounded.title = bounded.title.slice(0, keep);
    encoded = encode(bounded);
  }
  return encoded;
}
