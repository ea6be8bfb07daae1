// What a moonpool tool row keeps in pi's `details`: the call's status, title and last `ctx:show`
// state. pi saves `details` as JSON, so the state's msgpack bytes travel as base64; details read
// back from a session file are checked field by field, since the file may have been edited.
import { CALL_STATUSES, type CallResult, type CallStatus } from '../core/index.js';

export const DETAILS_VERSION = 1;

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
  /** While running: the last lines the tool printed (shown when it has no state to render). */
  recentLogs?: string[];
}

/** Lines of a running call's output carried in its partial results, and their longest. */
export const MAX_RECENT_LOG_LINES = 3;
export const MAX_RECENT_LOG_LINE_CHARS = 1000;

export function runningDetails(
  title: string | undefined,
  snapshot: string | undefined,
  recentLogs: readonly string[],
): MoonpoolDetails {
  return {
    moonpool: DETAILS_VERSION,
    status: 'running',
    ...(title === undefined ? {} : { title }),
    ...(snapshot === undefined ? {} : { snapshot }),
    ...(recentLogs.length === 0 ? {} : { recentLogs: [...recentLogs] }),
  };
}

/** `lines` with what a tool printed added, keeping the last MAX_RECENT_LOG_LINES, each cut short. */
export function keepRecentLogs(lines: readonly string[], text: string): string[] {
  const added = text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => line.slice(0, MAX_RECENT_LOG_LINE_CHARS));
  return [...lines, ...added].slice(-MAX_RECENT_LOG_LINES);
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
  const { moonpool, status, title, snapshot, spillPath, recentLogs } = value as Record<string, unknown>;
  if (moonpool !== DETAILS_VERSION) return undefined;
  if (typeof status !== 'string' || (status !== 'running' && !CALL_STATUSES.has(status))) return undefined;
  if (![title, snapshot, spillPath].every((field) => field === undefined || typeof field === 'string'))
    return undefined;
  if (recentLogs !== undefined && !(Array.isArray(recentLogs) && recentLogs.every((line) => typeof line === 'string')))
    return undefined;
  return {
    moonpool,
    status: status as MoonpoolDetails['status'],
    ...(typeof title === 'string' ? { title } : {}),
    ...(typeof snapshot === 'string' ? { snapshot } : {}),
    ...(typeof spillPath === 'string' ? { spillPath } : {}),
    ...(recentLogs === undefined ? {} : { recentLogs }),
  };
}
