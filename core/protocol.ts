// The messages that cross between the main thread and a Lua worker. Types only: both sides
// import this file and nothing else from each other.
import type { MessagePort } from 'node:worker_threads';

/** A problem found while loading a config or checking a tool definition. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Absolute path of the Lua file the problem is in, when known. */
  file?: string;
  line?: number;
  /** The tool the problem belongs to, when there is one. */
  tool?: string;
  message: string;
}

/** What every worker of a generation is started with (piscina `workerData`). */
export interface WorkerConfig {
  role: 'inspect' | 'module';
  /** Absolute path of the config's entry file (`init.lua`). */
  configFile: string;
  /** Directory that `require` searches (`lua/?.lua`, `?.lua`, `?/init.lua`). */
  configDir: string;
  /** Working directory for relative paths and `capture`. */
  cwd: string;
  /** Lua heap cap in bytes. */
  memoryLimitBytes: number;
}

/**
 * One `registry:add` call as the worker saw it. Data fields are converted from Lua as they
 * are (an empty Lua table arrives as `[]`); the core validates and normalises them.
 */
export interface RawToolDefinition {
  name: unknown;
  description: unknown;
  parameters: unknown;
  timeout: unknown;
  /** Lua type names of the callbacks: 'function' when set correctly. */
  runType: string;
  renderType: string;
  availableType: string;
  /** The file that defined `run`: the tool's module. */
  module: string | null;
  /** Where `registry:add` was called. */
  file: string;
  line: number;
  unknownFields: string[];
  /** A field whose value could not be converted (a function inside `parameters`, a cycle…). */
  conversionError?: string;
}

export interface DiscoveryReport {
  /** False when the config itself failed to load (syntax or runtime error at top level). */
  loaded: boolean;
  definitions: RawToolDefinition[];
  diagnostics: Diagnostic[];
  /** What the config printed while loading and discovering. */
  logs: string[];
}

/** The context a call runs with; becomes `ctx` in Lua. */
export interface CallContext {
  tool: string;
  callId: string;
  cwd: string;
  spillDir: string;
}

/** Live events of one call, sent by the worker over the call's own MessageChannel (comlink). */
export interface CallEvents {
  log(text: string): void;
  title(text: string): void;
  snapshot(bytes: Uint8Array): void;
}

/**
 * Every task carries `pids`: Int32 slots where the worker records the pid of each process
 * group it starts, so the core can kill them after terminating the worker.
 */
export type WorkerTask =
  | { kind: 'discover'; pids: SharedArrayBuffer }
  | { kind: 'available'; context: CallContext; pids: SharedArrayBuffer }
  | {
      kind: 'run';
      context: CallContext;
      args: unknown;
      /** The port the worker wraps with comlink to send `CallEvents`. */
      events: MessagePort;
      pids: SharedArrayBuffer;
    };

/** Why a run ended without a normal result. */
export type RunFailure = 'lua_error' | 'bad_return' | 'out_of_memory' | 'not_loaded' | 'unknown_tool';

export interface RunReply {
  content: string;
  isError: boolean;
  failure?: RunFailure;
  title?: string;
  snapshot?: Uint8Array;
}

export interface AvailableReply {
  available: boolean;
  reason?: string;
}

export type WorkerReply = DiscoveryReport | RunReply | AvailableReply;
