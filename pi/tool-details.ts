// What a moonpool tool row keeps in pi's `details`: the call's status, title and last `ctx:show`
// state. pi saves `details` as JSON, so the state's msgpack bytes travel as base64; details read
// back from a session file are checked field by field, since the file may have been edited.
import type { CallResult, CallStatus } from '../core/index.js';

export const DETAILS_VERSION = 1;

const CALL_STATUSES: ReadonlySet<string> = new Set<CallStatus>(['ok', 'error', 'timeout', 'cancelled', 'crashed', 'invalid_args', 'unavailable', 'unknown_tool', 'busy']);

export interface MoonpoolDetails {
  /** Marks details written by moonpool, and their layout. */
  moonpool: typeof DETAILS_VERSION;
  /** 'running' while pi shows a partial result. */
  status: 'running' | CallStatus;
  title?: string;
  /** The last `ctx:show` state: msgpack bytes, base64. */
  snapshot?: string;
  /** Where the whole output was written when it was over the inline limits. */
  spillPath?: string;
}

export function runningDetails(title: string | undefined, snapshot: string | undefined): MoonpoolDetails {
  return { moonpool: DETAILS_VERSION, status: 'running', ...(title === undefined ? {} : { title }), ...(snapshot === undefined ? {} : { snapshot }) };
}

export function finishedDetails(result: CallResult): MoonpoolDetails {
  return {
    moonpool: DETAILS_VERSION,
    status: result.status,
    ...(result.title === undefined ? {} : { title: result.title }),
    ...(result.snapshot === undefined ? {} : { snapshot: encodeSnapshot(result.snapshot) }),
    ...(result.spillPath === undefined ? {} : { spillPath: result.spillPath }),
  };
}

export function encodeSnapshot(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function decodeSnapshot(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/** `value` as moonpool's details, or undefined when it is not (another tool's, or damaged). */
export function readDetails(value: unknown): MoonpoolDetails | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { moonpool, status, title, snapshot, spillPath } = value as Record<string, unknown>;
  if (moonpool !== DETAILS_VERSION) return undefined;
  if (typeof status !== 'string' || (status !== 'running' && !CALL_STATUSES.has(status))) return undefined;
  if (![title, snapshot, spillPath].every((field) => field === undefined || typeof field === 'string')) return undefined;
  return {
    moonpool,
    status: status as MoonpoolDetails['status'],
    ...(typeof title === 'string' ? { title } : {}),
    ...(typeof snapshot === 'string' ? { snapshot } : {}),
    ...(typeof spillPath === 'string' ? { spillPath } : {}),
  };
}
