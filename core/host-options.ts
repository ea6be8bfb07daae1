// ToolHost's options, their defaults, and the up-front validation that names a bad option.
import { availableParallelism, homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { MoonpoolError } from './errors.js';
import { DEFAULT_MAX_INLINE_CHARS, DEFAULT_MAX_INLINE_LINES } from './output-limit.js';

export interface ToolHostOptions {
  /** The config's entry file or its directory. Default: the lookup of `resolveConfig`. */
  config?: string;
  /** Working directory for tools (`ctx.cwd`, relative paths, `capture`). Default: process.cwd(). */
  cwd?: string;
  /** Where sessions and spill files live. Default: $XDG_STATE_HOME/moonpool or ~/.local/state/moonpool. */
  stateDir?: string;
  /** Session to append to; default: a new one. Letters, digits, `_` and `-` only. */
  sessionId?: string;
  /** Wall-clock limit for tools that set no `timeout`, in ms. Default 120,000. */
  timeoutMs?: number;
  /** Lua heap cap per worker, in bytes. Default 256 MiB. */
  memoryLimitBytes?: number;
  /** Limit for loading the config and running discovery, in ms. Default 5,000. */
  loadTimeoutMs?: number;
  /** Limit for each tool's `available`, in ms. Default 2,000. */
  availableTimeoutMs?: number;
  /** Time budget of one `render`, in ms; past it the default block is shown. Default 50. */
  renderBudgetMs?: number;
  /**
   * How many calls may execute Lua at the same moment, host-wide. Past a call's first 10 ms,
   * calls take turns of about 20 ms, handed over at `ctx:show` and while a call waits on a
   * command; a call that never shows progress keeps its turn until it waits or ends, and calls
   * waiting behind a queue that has not moved for 200 ms run anyway. Default: the number of CPUs.
   */
  cpuSlots?: number;
  /** Workers per module pool. Default: min(4, cores). */
  maxThreadsPerModule?: number;
  /** An idle worker is reaped after this many ms. Default 60,000. */
  idleTimeoutMs?: number;
  /** Calls that may queue per module before new ones are refused as `busy`. Default 256. */
  maxQueuePerModule?: number;
  /** Longest result the model sees inline, in characters; longer ones spill. Default 50,000. */
  maxInlineChars?: number;
  /** Most lines the model sees inline; more spill. Default 2,000. */
  maxInlineLines?: number;
  /** Spill directories of other sessions are removed after this many days. Default 7. */
  spillRetentionDays?: number;
  /**
   * Sessions (logs and spill files) not written for this many days are removed when a host
   * starts; Infinity keeps them. Sessions in use and the host's own are never removed. Default 30.
   */
  sessionMaxAgeDays?: number;
  /**
   * When all sessions together take more than this many bytes, the oldest are removed at start
   * until the newest fit; Infinity keeps them. Default 1 GiB.
   */
  sessionMaxTotalBytes?: number;
  /**
   * The session's log continues in a new segment file past this many bytes, so the retention
   * rule can remove the oldest segments of a session still in use. Default 64 MiB.
   */
  sessionSegmentBytes?: number;
  /** Reload when a file in the config's directory changes (debounced 200 ms). Default false. */
  watch?: boolean;
  /**
   * Start one module worker while the config loads, for the first module called: its call then
   * does not wait for a worker thread to start (the CLI's `call` sets it). That module's pool then
   * keeps one worker until the host closes or reloads. Default false.
   */
  warmModuleWorker?: boolean;
}

export type ResolvedHostOptions = Required<Omit<ToolHostOptions, 'config' | 'sessionId'>> &
  Pick<ToolHostOptions, 'sessionId'>;

export const DEFAULT_TIMEOUT_MS = 120_000;
export const DEFAULT_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
/** wasmoon's WebAssembly memory cannot grow past 2 GiB, whatever the cap. */
export const MAX_MEMORY_LIMIT_BYTES = 2 * 1024 * 1024 * 1024;
export const DEFAULT_LOAD_TIMEOUT_MS = 5_000;
export const DEFAULT_AVAILABLE_TIMEOUT_MS = 2_000;
export const DEFAULT_RENDER_BUDGET_MS = 50;
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const DEFAULT_SESSION_MAX_AGE_DAYS = 30;
export const DEFAULT_SESSION_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
export const DEFAULT_SESSION_SEGMENT_BYTES = 64 * 1024 * 1024;

export function defaultStateDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['XDG_STATE_HOME'] || join(homedir(), '.local', 'state'), 'moonpool');
}

/** The most calls a module may queue, and the most CPU slots. */
const MAX_QUEUE_OR_SLOTS = 65_536;

function invalid(message: string): never {
  throw new MoonpoolError('INVALID_OPTION', message);
}

export function resolveHostOptions(options: ToolHostOptions): ResolvedHostOptions {
  const positive = (name: keyof ToolHostOptions, fallback: number, integer = false, max = Infinity): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)))
      invalid(`options.${name} must be a positive ${integer ? 'integer' : 'number'} (got ${String(value)})`);
    if (value > max) invalid(`options.${name} must be at most ${max} (got ${String(value)})`);
    return value;
  };
  /** A limit that may be 0 (keep nothing) or Infinity (no limit). */
  const limit = (name: keyof ToolHostOptions, fallback: number): number => {
    const value = options[name];
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || Number.isNaN(value) || value < 0)
      invalid(`options.${name} must be a number, at least 0 (Infinity for no limit; got ${String(value)})`);
    return value;
  };
  if (options.memoryLimitBytes !== undefined && options.memoryLimitBytes > MAX_MEMORY_LIMIT_BYTES)
    invalid(`options.memoryLimitBytes must be at most ${MAX_MEMORY_LIMIT_BYTES} (2 GiB, the WebAssembly memory limit)`);
  if (options.sessionId !== undefined && !SESSION_ID_PATTERN.test(options.sessionId))
    invalid(`options.sessionId must match ${SESSION_ID_PATTERN.source} (got ${JSON.stringify(options.sessionId)})`);
  return {
    cwd: resolve(options.cwd ?? process.cwd()),
    stateDir: resolve(options.stateDir ?? defaultStateDir()),
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
    timeoutMs: positive('timeoutMs', DEFAULT_TIMEOUT_MS),
    memoryLimitBytes: positive('memoryLimitBytes', DEFAULT_MEMORY_LIMIT_BYTES, true),
    loadTimeoutMs: positive('loadTimeoutMs', DEFAULT_LOAD_TIMEOUT_MS),
    availableTimeoutMs: positive('availableTimeoutMs', DEFAULT_AVAILABLE_TIMEOUT_MS),
    renderBudgetMs: positive('renderBudgetMs', DEFAULT_RENDER_BUDGET_MS),
    // Each waiting call has a row of the module's task table, made with the pool; each slot a ticket in a 32-bit ring.
    cpuSlots: positive('cpuSlots', availableParallelism(), true, MAX_QUEUE_OR_SLOTS),
    maxThreadsPerModule: positive('maxThreadsPerModule', Math.min(4, availableParallelism()), true),
    idleTimeoutMs: positive('idleTimeoutMs', 60_000),
    maxQueuePerModule: positive('maxQueuePerModule', 256, true, MAX_QUEUE_OR_SLOTS),
    maxInlineChars: positive('maxInlineChars', DEFAULT_MAX_INLINE_CHARS, true),
    maxInlineLines: positive('maxInlineLines', DEFAULT_MAX_INLINE_LINES, true),
    spillRetentionDays: positive('spillRetentionDays', 7),
    sessionMaxAgeDays: limit('sessionMaxAgeDays', DEFAULT_SESSION_MAX_AGE_DAYS),
    sessionMaxTotalBytes: limit('sessionMaxTotalBytes', DEFAULT_SESSION_MAX_TOTAL_BYTES),
    sessionSegmentBytes: positive('sessionSegmentBytes', DEFAULT_SESSION_SEGMENT_BYTES, true),
    watch: options.watch ?? false,
    warmModuleWorker: options.warmModuleWorker ?? false,
  };
}
