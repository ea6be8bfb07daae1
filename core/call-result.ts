// What a call returns to the host, and the model-facing messages for each way a call can end.
// Messages built from lists (problems, tool names) are bounded like results.
import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from '../shared/protocol.js';
import { clip, listWithin } from './bounded-text.js';
import { closestName } from './name-suggestion.js';
import type { AskExchange, AskHandler } from './call-questions.js';

/** Problems listed in an `invalid_args` message; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;
/** Longest problem line in an `invalid_args` message. */
export const MAX_PROBLEM_CHARS = 300;
/** Tool names listed in an `unknown_tool` message; the rest are counted. */
export const MAX_LISTED_TOOLS = 50;
/** Longest requested tool name repeated in an `unknown_tool` message. */
export const MAX_ECHOED_NAME_CHARS = 100;

export type CallStatus =
  'ok' | 'error' | 'timeout' | 'cancelled' | 'crashed' | 'invalid_args' | 'unavailable' | 'unknown_tool' | 'busy';

export interface CallResult {
  callId: string;
  tool: string;
  status: CallStatus;
  /** True for every status but `ok`. */
  isError: boolean;
  /** The text the model sees, at most the inline limits long. */
  content: string;
  /** When the output was over the inline limits: the file that holds all of it. */
  spillPath?: string;
  /**
   * `run`'s `structured` table (MCP's structuredContent), on `ok` results that returned one; it
   * matches the tool's `outputSchema` when the tool has one. `content` is the text beside it.
   */
  structured?: Record<string, unknown>;
  /** The last `ctx:title`, if any. */
  title?: string;
  /** The last `ctx:show` state, msgpack-encoded. */
  snapshot?: Uint8Array;
  /** What the call asked the user (`ctx:ask`) and the answers, in order, when it asked anything. */
  questions?: AskExchange[];
  durationMs: number;
}

export interface CallOptions {
  /** Cancels the call: its worker is terminated and its processes killed. */
  signal?: AbortSignal;
  /** Receives each (coalesced) `ctx:show` state, msgpack-encoded. */
  onSnapshot?: (snapshot: Uint8Array) => void;
  onTitle?: (title: string) => void;
  /** Receives what the tool prints (`print`, `io.write`, a command's stderr). */
  onLog?: (text: string) => void;
  /**
   * Told when the call must wait before a worker takes it (every worker of its module is busy, or
   * the process's worker starts are at their limit) with its place among its module's waiting
   * calls, 1 being next; told again when the place changes.
   */
  onQueued?: (place: number) => void;
  /** Told when a call that was queued is taken by a worker: it runs from now on. */
  onStart?: () => void;
  /**
   * Asks the user a tool's question (`ctx:ask`): resolve to `{ answer }` (one of the question's
   * `choices`, or a boolean for a `confirm`) or `{ refused: 'declined' }`. The call's time limit
   * is paused until it settles; `signal` aborts when the call ends first (cancelled). Without it,
   * or when it throws or answers anything else, the tool hears `nil, 'unavailable'`.
   */
  onAsk?: AskHandler;
}

/** Calls one of the caller's callbacks: one that throws, or returns a promise that rejects, loses only its own news. */
export function tell(callback: () => unknown): void {
  try {
    const returned = callback();
    if (returned !== undefined) Promise.resolve(returned).catch(() => undefined);
  } catch {
    // The caller's problem; the call runs on.
  }
}

/** `3 s`, `1.5 s`, and below a second two significant digits (`0.04 s`), never `0.0 s`. */
export function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  if (Number.isInteger(seconds)) return `${seconds} s`;
  return `${seconds >= 1 ? seconds.toFixed(1) : Number(seconds.toPrecision(2))} s`;
}

/** ` (did you mean 'primes'?)` for a name close to one of `known`, else ''. */
function meantTool(name: string, known: string[]): string {
  const meant = closestName(name, known);
  return meant === undefined ? '' : ` (did you mean '${clip(meant, MAX_ECHOED_NAME_CHARS)}'?)`;
}

/** `lua/x.lua:5: message`: a diagnostic's place, relative to the config's directory when inside it, and its message. */
function placedProblem(diagnostic: Diagnostic, configDir: string, name: string): string {
  const local = diagnostic.file === undefined ? undefined : relative(configDir, diagnostic.file);
  const file = local && !local.startsWith('..') && !isAbsolute(local) ? local : diagnostic.file;
  const where = file === undefined ? '' : `${file}${diagnostic.line === undefined ? '' : `:${diagnostic.line}`}: `;
  // The problem already belongs to the tool the message names: its `tool 'x': ` label is left out.
  const label = `tool '${name}': `;
  const message = diagnostic.message.startsWith(label) ? diagnostic.message.slice(label.length) : diagnostic.message;
  return clip(`${where}${message}`, MAX_PROBLEM_CHARS);
}

export const messages = {
  unknownTool: (name: string, known: string[]) =>
    `unknown tool '${clip(name, MAX_ECHOED_NAME_CHARS)}'${meantTool(name, known)}${
      known.length > 0
        ? `; the tools are: ${listWithin(known, { maxItems: MAX_LISTED_TOOLS, maxItemChars: MAX_ECHOED_NAME_CHARS, separator: ', ', noun: 'tools' })}`
        : '; no tools are loaded'
    }`,
  definitionFailed: (name: string, errors: Diagnostic[], configDir: string) =>
    `unknown tool '${name}': its definition has ${
      errors.length === 1 ? 'an error' : `${errors.length} errors`
    }, so it was not loaded (${errors.length === 1 ? '' : 'the first: '}${placedProblem(errors[0]!, configDir, name)})`,
  unavailable: (name: string, reason: string) => `${name} is unavailable: ${reason}`,
  invalidArgs: (name: string, problems: string[]) =>
    `${name}: invalid arguments, run was not called:\n${listWithin(problems, { maxItems: MAX_LISTED_PROBLEMS, maxItemChars: MAX_PROBLEM_CHARS, separator: '\n', noun: 'problems' })}`,
  badStructured: (name: string, problems: string[]) =>
    `${name}: run's structured result is not valid:\n${listWithin(problems, { maxItems: MAX_LISTED_PROBLEMS, maxItemChars: MAX_PROBLEM_CHARS, separator: '\n', noun: 'problems' })}`,
  timeout: (name: string, ms: number) =>
    `${name}: timed out after ${formatSeconds(ms)} (set \`timeout\` in registry:add to allow longer)`,
  workerNotReady: (name: string, ms: number) =>
    `${name}: not run: its worker did not finish starting and loading the config within ${formatSeconds(ms)} (an endless loop or a blocking read at load time?)`,
  cancelled: (name: string) => `${name}: cancelled`,
  crashed: (name: string, why: string) =>
    `${name}: the worker running it crashed (${why}); the next call starts a fresh one`,
  disabled: (name: string, limit: number, windowMinutes: number) =>
    `${name}: disabled after its workers crashed ${limit} times in ${windowMinutes} minutes; fix the tool and reload`,
  outOfMemory: (name: string, bytes: number) =>
    `${name}: out of memory (the Lua heap is capped at ${Math.round(bytes / 1024 / 1024)} MiB)`,
  busy: (name: string, limit: number) =>
    `${name}: too many calls waiting (the limit is ${limit}); try again when some have finished`,
  notLoaded: (name: string, error: string) =>
    `${name}: the config failed to load in the worker (the next call loads it afresh): ${error}`,
} as const;
