// One logged call: its shape, the check every record read back must pass, and the bound every
// record written must fit. A record over MAX_RECORD_BYTES is never skipped or cut silently: its
// snapshot goes first, then its arguments, then the tail of its content, each named in `dropped`.
import { encodeMsgpack, scanMsgpackMap } from './msgpack-codec.js';
import type { MsgpackKind } from '../shared/msgpack.js';
import type { CallStatus } from './call-result.js';
import type { AskExchange } from './call-questions.js';

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
  /** What the call asked the user (`ctx:ask`) and the answers, when it asked anything. */
  questions?: AskExchange[];
  /** When the call finished (ms since the epoch). */
  finishedAt: number;
  /** What was left out to keep the record within MAX_RECORD_BYTES, one line each. */
  dropped?: string[];
}

/** Every status a record may hold (a record holding anything else is damage). */
export const CALL_STATUSES: ReadonlySet<string> = new Set<CallStatus>([
  'ok',
  'error',
  'timeout',
  'cancelled',
  'crashed',
  'invalid_args',
  'unavailable',
  'unknown_tool',
  'busy',
]);

/** Values decoding one record may build (see decodeMsgpack); past them, it is skipped. */
const RECORD_MAX_VALUES = 4_000_000;

type Fields = Map<string, { kind: MsgpackKind; value?: unknown }>;

/**
 * Why a record is not a SessionRecord, from each field's kind and (where decoded) value; the same checks whether the
 * record was decoded whole or only outlined (its bodies' contents unchecked then).
 */
function shapeProblem(fields: Fields): string | undefined {
  const kind = (key: string): MsgpackKind | undefined => fields.get(key)?.kind;
  const value = (key: string): unknown => fields.get(key)?.value;
  for (const key of ['callId', 'tool', 'status', 'content'] as const)
    if (kind(key) !== 'string') return `its ${key} is not a string`;
  const status = value('status') as string;
  if (!CALL_STATUSES.has(status)) return `its status ${JSON.stringify(status.slice(0, 40))} is not a status`;
  for (const key of ['durationMs', 'finishedAt'] as const)
    if (typeof value(key) !== 'number') return `its ${key} is not a number`;
  // An optional field: absent, or of its kind, each item it was decoded to (if it was) passing `item`.
  const fits = (key: string, expected: MsgpackKind, item = (_: unknown): boolean => true): boolean => {
    const items = value(key);
    return kind(key) === undefined || (kind(key) === expected && (!Array.isArray(items) || items.every(item)));
  };
  for (const key of ['spillPath', 'title']) if (!fits(key, 'string')) return `its ${key} is not a string`;
  if (!fits('snapshot', 'binary')) return 'its snapshot is not bytes';
  if (!fits('questions', 'array', isExchange)) return 'its questions are not questions and answers';
  if (!fits('dropped', 'array', (line) => typeof line === 'string')) return 'its dropped list is not strings';
  return undefined;
}

/** Whether a decoded value is an AskExchange as the host writes it. */
function isExchange(value: unknown): value is AskExchange {
  if (typeof value !== 'object' || value === null) return false;
  const { question, answer, refused, waitedMs } = value as Record<string, unknown>;
  if (typeof question !== 'object' || question === null || typeof waitedMs !== 'number') return false;
  const { kind, question: text, choices } = question as Record<string, unknown>;
  if (typeof text !== 'string') return false;
  if (kind === 'choice' && !(Array.isArray(choices) && choices.every((choice) => typeof choice === 'string')))
    return false;
  if (kind !== 'choice' && kind !== 'confirm') return false;
  return (
    (answer === undefined || typeof answer === 'string' || typeof answer === 'boolean') &&
    (refused === undefined || refused === 'declined' || refused === 'unavailable')
  );
}

/** A record's fields, the values of those in `decode` (all when undefined) decoded, or why it is not a record. */
function recordFields(payload: Uint8Array, decode?: ReadonlySet<string>): Fields | { problem: string } {
  let fields: Fields | undefined;
  try {
    fields = scanMsgpackMap(payload, decode, RECORD_MAX_VALUES);
  } catch (error) {
    return { problem: `its payload does not decode (${(error as Error).message})` };
  }
  const problem = fields === undefined ? 'the record is not a map' : shapeProblem(fields);
  return problem === undefined ? fields! : { problem };
}

/** The record decoded from a payload, or why it cannot be one. */
export function decodeRecord(payload: Uint8Array): { record: SessionRecord } | { problem: string } {
  const fields = recordFields(payload);
  if (!(fields instanceof Map)) return fields;
  const record = Object.fromEntries([...fields].map(([key, field]) => [key, field.value]));
  return { record: record as unknown as SessionRecord };
}

/** The fields whose values a record's outline decodes; the others are only checked for their kind. */
const OUTLINE_FIELDS: ReadonlySet<string> = new Set(['status', 'durationMs', 'finishedAt']);

/** What listing needs of a record: its times, once its shape is checked without decoding its bodies. */
export function outlineRecord(payload: Uint8Array): { durationMs: number; finishedAt: number } | { problem: string } {
  const fields = recordFields(payload, OUTLINE_FIELDS);
  if (!(fields instanceof Map)) return fields;
  const time = (key: string): number => fields.get(key)!.value as number;
  return { durationMs: time('durationMs'), finishedAt: time('finishedAt') };
}

/** Longest reason `$notRecorded` keeps of the encoder's message, which may quote what it refused. */
const MAX_NOT_RECORDED_CHARS = 200;

const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

/**
 * The record's msgpack payload, at most MAX_RECORD_BYTES. Arguments msgpack cannot hold (a BigInt past 64 bits) are
 * not recorded, as arguments too large are not; throws for another such value: a lost record.
 */
export function encodeBounded(given: SessionRecord): Buffer {
  let record = given;
  let encoded: Buffer;
  try {
    encoded = encodeMsgpack(record);
  } catch (error) {
    const why = String((error as Error).message).slice(0, MAX_NOT_RECORDED_CHARS);
    record = { ...record, args: { $notRecorded: `cannot be recorded (${why})` } };
    encoded = encodeMsgpack(record);
  }
  const over = (): boolean => encoded.length > MAX_RECORD_BYTES;
  if (!over()) return encoded;
  const bounded: SessionRecord = { ...record, dropped: [...(record.dropped ?? [])] };
  const note = (what: string): void =>
    void bounded.dropped!.push(`${what}: the record was over the ${mib(MAX_RECORD_BYTES)} limit`);
  if (bounded.snapshot !== undefined) {
    note(`snapshot of ${mib(bounded.snapshot.length)} not recorded`);
    delete bounded.snapshot;
    encoded = encodeMsgpack(bounded);
  }
  if (over()) {
    note(`arguments of ${mib(encodeMsgpack(bounded.args).length)} not recorded`);
    bounded.args = { $notRecorded: 'too large to record' };
    encoded = encodeMsgpack(bounded);
  }
  if (over()) {
    // Only a host configured with enormous inline limits gets here: keep the head of the content.
    const keep = Math.floor(MAX_RECORD_BYTES / 8);
    note(`content cut from ${bounded.content.length} to ${keep} characters`);
    bounded.content = bounded.content.slice(0, keep);
    if (bounded.title !== undefined) bounded.title = bounded.title.slice(0, keep);
    encoded = encodeMsgpack(bounded);
  }
  return encoded;
}
