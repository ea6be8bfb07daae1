// The messages between the main thread and a Lua worker: what a worker starts with, the tasks,
// each kind's reply (TaskReplies) and the live events. Both sides import this file.
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

/** What every worker of a generation is started with (its `workerData`). */
export interface WorkerConfig {
  role: 'inspect' | 'module';
  /** Absolute path of the config's entry file (`init.lua`). */
  configFile: string;
  /** Directory that `require` searches (`lua/?.lua`, `?.lua`, `?/init.lua`). */
  configDir: string;
  /** Working directory for relative paths and `capture` (`ctx.cwd`). */
  cwd: string;
  /** The session's spill directory (`ctx.spill_dir`). */
  spillDir: string;
  memoryLimitBytes: number;
  /** The generation's Lua files (real path → bytes): code is loaded from here before the disk. */
  sources: Record<string, Uint8Array>;
  /** wasmoon's module, compiled once by the host. */
  luaModule: WebAssembly.Module;
  /** The pool's task table (shared/task-table.ts): per task its stamps, CPU seat and process groups. */
  taskTable: SharedArrayBuffer;
  /** Date.now() at the task table's creation. */
  taskTableEpochMs: number;
  /** The host's CPU slots (shared/cpu-slots.ts): calls take turns executing Lua. */
  cpuSlots: SharedArrayBuffer;
}

/** One `registry:add` call as the worker saw it, converted from Lua as is (`{}` arrives as `[]`); the core checks it. */
export interface RawToolDefinition {
  name: unknown;
  description: unknown;
  parameters: unknown;
  timeout: unknown;
  annotations?: unknown;
  outputSchema?: unknown;
  /** `permissions` as read from Lua: the tool's own, else the config's default. */
  permissions?: unknown;
  /** Where the config's default permissions were set, when the tool took them. */
  permissionsAt?: { file: string; line: number };
  /** Lua type names of the callbacks. */
  runType: string;
  renderType: string;
  availableType: string;
  /** The file that defined `run`. */
  module: string | null;
  file: string;
  line: number;
  /** Every key of the definition table: strings (past 100 bytes, cut and measured), other keys in brackets (`[1]`). */
  fieldNames: string[];
  /** Why a field's value could not be converted (a function inside `parameters`, a cycle…), and which. */
  conversionError?: string;
  conversionField?: string;
}

export interface DiscoveryReport {
  /** False when the config itself failed to load (syntax or runtime error at top level). */
  loaded: boolean;
  definitions: RawToolDefinition[];
  diagnostics: Diagnostic[];
  logs: string[];
}

/**
 * What a tool declared it may touch (registry:add's `permissions`), as written: paths (relative to
 * `ctx.cwd`, or `~`), program names or paths, variable names; `true` allows all of that kind.
 */
export interface ToolPermissions {
  read: true | string[];
  write: true | string[];
  exec: true | string[];
  env: true | string[];
}

/** What makes one call's `ctx` (with the worker's `cwd` and `spillDir`). */
export interface CallContext {
  tool: string;
  callId: string;
  /** What the tool may touch, when it declared it; the worker holds its code to it. */
  permissions?: ToolPermissions;
}

/** A question `ctx:ask` puts to the user (checked by the prelude); `default` is what Enter and `--yes` pick. */
export type AskQuestion =
  | { kind: 'choice'; question: string; choices: string[]; default?: string }
  | { kind: 'confirm'; question: string; default?: boolean };

/** Why a question got no answer: the user dismissed it (`declined`), or no one could be asked (`unavailable`). */
export type AskRefusal = 'declined' | 'unavailable';

/** The answer to a question: the choice picked (a string), yes or no (a boolean), or why there is none. */
export type AskAnswer = { answer: string | boolean } | { refused: AskRefusal };

export interface CallEvents {
  log(text: string): void;
  title(text: string): void;
  snapshot(bytes: Uint8Array): void;
  /** Asks the user; `signal` aborts when the call ends first. Absent: no one can be asked. */
  ask?(question: AskQuestion, signal: AbortSignal): Promise<AskAnswer>;
}

/** What a worker calls (comlink) over the port it posts as its code loads (WorkerEventsPort). */
export interface WorkerEvents {
  /** Log lines in order, batched (the host hears of each one). */
  log(callId: string, texts: string[]): void;
  title(callId: string, text: string): void;
  snapshot(callId: string, bytes: Uint8Array): void;
  /** `ctx:ask`: the call waits, its time limit paused, until the host has the user's answer. */
  ask(callId: string, question: AskQuestion): Promise<AskAnswer>;
  /** The worker is about to exit mid-task (to give back its memory); this is the task's reply. */
  retire(callId: string, reply: RunReply): void;
  /** The worker has made its Lua state. */
  started(): void;
}

export const EVENTS_PORT_KEY = 'moonpoolEventsPort';

export interface WorkerEventsPort {
  [EVENTS_PORT_KEY]: MessagePort;
  threadId: number;
}

/** A task as the core hands it to a pool, before the pool assigns its row. */
export type PoolTask =
  | { kind: 'warm' }
  /** `budgetMs`: the config's load limit; past it the worker stops the config's Lua at the line it is at. */
  | { kind: 'discover'; budgetMs: number }
  | { kind: 'available'; context: CallContext }
  | { kind: 'run'; context: CallContext; args: unknown }
  | {
      kind: 'render';
      tool: string;
      snapshot: Uint8Array;
      view: RenderView;
      budgetMs: number;
      permissions?: ToolPermissions;
    };

/** Every task, as a worker gets it, names its row of the pool's task table. */
export type WorkerTask = PoolTask & { row: number };

export type TaskKind = WorkerTask['kind'];

export interface TaskReplies {
  warm: null;
  discover: DiscoveryReport;
  available: AvailableReply;
  run: RunReply;
  render: RenderReply;
}

export type TaskOf<K extends TaskKind> = Extract<WorkerTask, { kind: K }>;

/** The worker's entry point: a task of kind `K` in, that kind's reply out. */
export type TaskHandler = <K extends TaskKind>(task: TaskOf<K>) => Promise<TaskReplies[K]>;

/** The space a block has: `view` in `render(state, view)`. */
export interface RenderView {
  width: number;
  height: number;
  /** The user asked for the full output (Ctrl-O). */
  expand: boolean;
}

/** What `render` produced, or why the default block is shown instead. */
export type RenderReply = { ok: true; lines: string[] } | { ok: false; reason: string };

/** Why a run ended without a normal result. */
export type RunFailure = 'lua_error' | 'bad_return' | 'out_of_memory' | 'not_loaded' | 'unknown_tool';

export interface RunReply {
  /** The result as text (bytes that are not UTF-8 written as \xNN). */
  content: string;
  /** The result's exact bytes, when they are not valid UTF-8. */
  rawContent?: Uint8Array;
  isError: boolean;
  failure?: RunFailure;
  /** `run`'s `structured` table, as read from Lua (an empty table arrives as `[]`). */
  structured?: unknown;
  title?: string;
  snapshot?: Uint8Array;
}

/** A tool's `available()`: offered, or not and why (the worker always says why). */
export type AvailableReply = { available: true } | { available: false; reason: string };
