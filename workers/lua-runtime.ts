// One Lua state per worker: wasmoon with the moonpool prelude, the user's config evaluated
// once, and the entry points (load, discover, run, available, render) run on one reusable Lua
// thread (entry-runner.ts) so that `capture` can await and no call disturbs the global stack.
// A `run` also sends its live events (call-channel.ts) and takes CPU turns (cpu-turns.ts).
import { isUtf8 } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { unpack } from 'msgpackr';
import { LuaFactory, LUA_REGISTRYINDEX } from 'wasmoon';
import type { LuaEngine } from 'wasmoon';
import type {
  RunFailure,
  RenderReply,
  RenderView,
  AvailableReply,
  CallContext,
  Diagnostic,
  DiscoveryReport,
  RawToolDefinition,
  RunReply,
  WorkerConfig,
} from '../core/protocol.js';
import { CpuSlots } from '../core/cpu-slots.js';
import { runShell, type CaptureOutcome } from './capture.js';
import type { ChildPidTable, TaskTable } from './child-pids.js';
import { installNatives, type NativeFunction } from './lua-natives.js';
import { decodeLuaText, LuaConversionError, LuaStack, type LuaRawApi } from './lua-stack.js';
import { createFsNatives } from './fs-natives.js';
import { ChunkNames } from './chunk-names.js';
import { createOutputNatives, type OutputNatives, type OutputRawApi } from './output-natives.js';
import { EntryRunner } from './entry-runner.js';
import { withCompiledModule } from './shared-wasm.js';
import { CountHook } from './count-hook.js';
import { CpuTurns } from './cpu-turns.js';
import { SnapshotBox } from './snapshot-box.js';
import { SnapshotWatch } from './snapshot-watch.js';
import type { CallChannel } from './call-channel.js';

const PRELUDE_DIR = fileURLToPath(new URL('../../workers/lua/', import.meta.url));
const PRELUDE_FILES = ['shell.lua', 'io.lua', 'api.lua'] as const;
const ENTRY_NAMES = ['load', 'discover', 'run', 'available', 'render'] as const;
type EntryName = (typeof ENTRY_NAMES)[number];

/** The per-task state natives need: where output goes and where child pids are recorded. */
interface TaskScope {
  pids: ChildPidTable | null;
  channel: CallChannel | null;
  logs: string[];
  /** A render's time budget: Lua is stopped with an error past `deadline` (Date.now() ms). */
  budget?: { deadline: number; ms: number };
}

/** Outside a task: output is dropped and no pids are recorded. */
const IDLE_SCOPE: TaskScope = { pids: null, channel: null, logs: [] };

export class LuaRuntime {
  private readonly stack: LuaStack;
  private readonly raw: LuaRawApi;
  private readonly runner: EntryRunner;
  private readonly hook: CountHook;
  private readonly turns: CpuTurns;
  private readonly output: OutputNatives;
  private readonly chunkNames = new ChunkNames();
  private watch: SnapshotWatch | undefined;
  private readonly entries = new Map<EntryName, number>();
  private readonly captures = new Map<number, CaptureOutcome>();
  private nextCaptureId = 1;
  private reply: unknown = undefined;
  private scope: TaskScope = IDLE_SCOPE;
  private discovery: DiscoveryReport = { loaded: false, definitions: [], diagnostics: [], logs: [] };

  private constructor(
    private readonly engine: LuaEngine,
    private readonly config: WorkerConfig,
    private readonly tasks: TaskTable,
  ) {
    this.raw = engine.global.lua.module as unknown as LuaRawApi;
    this.stack = new LuaStack(this.raw);
    this.turns = new CpuTurns(new CpuSlots(config.cpuSlots));
    this.output = createOutputNatives(this.raw as unknown as OutputRawApi, this.stack, (text) => this.logLine(text));
    this.runner = new EntryRunner(engine, this.raw, this.stack, {
      beforeWait: (L) => {
        this.watch?.beforeWait(L);
        this.scope.channel?.sendEvents();
        this.hook.release('events');
        this.turns.pause();
      },
      afterWait: () => this.turns.resume(),
    });
    this.hook = new CountHook(this.raw, (fn, signature) => engine.global.lua.module.addFunction(fn, signature), (L) => {
      this.stopAtDeadline(L);
      this.watch?.tick(L);
      this.sendPendingEvents();
      this.turns.checkpoint();
    });
  }

  /** Sends a pending title and log lines once due; the hook keeps looking while some wait. */
  private sendPendingEvents(): void {
    const { channel } = this.scope;
    channel?.sendEventsIfDue();
    if (channel?.eventsPending) this.hook.hold(this.runner.address, 'events');
    else this.hook.release('events');
  }

  private logLine(line: string): void {
    const text = this.chunkNames.expand(line);
    if (!this.scope.channel) this.scope.logs.push(text);
    else {
      this.scope.channel.log(text);
      this.sendPendingEvents();
    }
  }

  /** Where console output from inside the worker goes: the running call's log, if any. */
  logToCall(text: string): void {
    this.scope.channel?.log(text);
  }

  /** Creates the Lua state, evaluates the config and runs discovery. Lua errors become diagnostics. */
  static async create(config: WorkerConfig, tasks: TaskTable, pidRow: number): Promise<LuaRuntime> {
    const engine = await withCompiledModule(config.luaModule, () =>
      new LuaFactory().createEngine({ traceAllocations: true, enableProxy: false, injectObjects: false }),
    );
    const runtime = new LuaRuntime(engine, config, tasks);
    runtime.installPrelude();
    engine.global.setMemoryMax(config.memoryLimitBytes);
    await runtime.loadAndDiscover(pidRow);
    return runtime;
  }

  discoveryReport(): DiscoveryReport {
    return this.discovery;
  }

  async run(context: CallContext, args: unknown, pidRow: number, channel: CallChannel): Promise<RunReply> {
    if (!this.discovery.loaded) {
      return { content: 'the config failed to load in this worker', isError: true, failure: 'not_loaded' };
    }
    this.watch?.begin(this.runner.address, channel);
    this.turns.begin(this.tasks.seat(pidRow));
    let ran: { reply: RunReply; shows: number };
    try {
      ran = await this.invoke(
        'run',
        this.scopeFor(pidRow, channel),
        (L) => {
          this.stack.pushString(L, context.tool);
          this.stack.pushValue(L, args);
          this.stack.pushString(L, context.callId);
          return 3;
        },
        (L, count) => this.readRunResults(L, count),
      );
    } catch (error) {
      this.watch?.finish(false);
      throw error;
    } finally {
      this.hook.release('events');
      this.turns.end();
    }
    // A call that never showed anything has nothing left in the box.
    const problem = this.watch?.finish(ran.shows > 0);
    const delivery = channel.drain();
    if (delivery) await delivery;
    const result: RunReply = { ...ran.reply, ...channel.final() };
    if (problem !== undefined && !ran.reply.isError) Object.assign(result, { content: problem, isError: true, failure: 'lua_error' });
    return result;
  }

  async available(context: CallContext, pidRow: number): Promise<AvailableReply> {
    const reply = await this.invoke('available', this.scopeFor(pidRow, null), (L) => {
      this.stack.pushString(L, context.tool);
      this.stack.pushString(L, context.callId);
      return 2;
    });
    const { available, reason } = reply as { available: boolean; reason?: string };
    return reason === undefined ? { available } : { available, reason };
  }

  /** Renders a snapshot with the tool's `render`, stopping it at `budgetMs`. */
  async render(tool: string, snapshot: Uint8Array, view: RenderView, budgetMs: number, pidRow: number): Promise<RenderReply> {
    if (!this.discovery.loaded) return { ok: false, reason: 'the config failed to load in this worker' };
    const scope = { ...this.scopeFor(pidRow, null), budget: { deadline: Date.now() + budgetMs, ms: budgetMs } };
    this.hook.hold(this.runner.address, 'render');
    try {
      const reply = await this.invoke('render', scope, (L) => {
        this.stack.pushString(L, tool);
        this.stack.pushValue(L, unpack(snapshot));
        this.stack.pushValue(L, view);
        return 3;
      });
      return reply as RenderReply;
    } finally {
      this.hook.release('render');
    }
  }

  /** Raises an error in Lua once the task's deadline has passed (and at every tick after). */
  private stopAtDeadline(L: number): void {
    const { budget } = this.scope;
    if (budget === undefined || Date.now() <= budget.deadline) return;
    this.stack.pushString(L, `took longer than its ${budget.ms} ms budget`);
    this.raw._lua_error(L);
  }

  private scopeFor(pidRow: number, channel: CallChannel | null): TaskScope {
    return { pids: this.tasks.pids(pidRow), channel, logs: [] };
  }

  private async loadAndDiscover(pidRow: number): Promise<void> {
    const scope = this.scopeFor(pidRow, null);
    const loaded = await this.invoke<{ ok: boolean; error?: string }>('load', scope, (L) => (this.stack.pushString(L, this.config.configFile), 1));
    if (!loaded.ok) {
      const diagnostic = errorDiagnostic(loaded.error ?? 'unknown error', this.config.configFile);
      this.discovery = { loaded: false, definitions: [], diagnostics: [diagnostic], logs: scope.logs };
      return;
    }
    await this.invoke('discover', scope, () => 0);
    this.discovery = { ...(this.reply as Omit<DiscoveryReport, 'loaded'>), loaded: true };
  }

  /**
   * Runs a prelude entry point with `scope` in force. The reply is what `readResults` makes of
   * the entry's return values, or else what the entry passed to `native.reply`.
   */
  private async invoke<R = unknown>(entry: EntryName, scope: TaskScope, pushArguments: (L: number) => number, readResults?: (L: number, count: number) => R): Promise<R> {
    this.scope = scope;
    this.reply = undefined;
    try {
      const result = await this.runner.call(this.entries.get(entry)!, pushArguments, readResults ?? (() => this.reply as R));
      this.reply = this.chunkNames.expandAll(this.reply);
      return this.chunkNames.expandAll(result);
    } finally {
      this.output.endTask();
      this.scope = IDLE_SCOPE;
    }
  }

  /** `entry.run`'s results: content, is_error, failure, and how many times it called ctx:show. */
  private readRunResults(L: number, count: number): { reply: RunReply; shows: number } {
    const base = this.raw._lua_gettop(L) - count;
    const bytes = this.stack.bytesAt(L, base + 1) ?? Buffer.alloc(0);
    const failure = this.stack.stringAt(L, base + 3);
    const reply: RunReply = {
      content: decodeLuaText(bytes),
      isError: this.stack.booleanAt(L, base + 2),
      ...(isUtf8(bytes) ? {} : { rawContent: new Uint8Array(bytes) }),
      ...(failure === null ? {} : { failure: failure as RunFailure }),
    };
    return { reply, shows: this.stack.numberAt(L, base + 4) ?? 0 };
  }

  private installPrelude(): void {
    const global = this.engine.global;
    installNatives(this.engine, this.stack, '__moonpool_native', this.natives());
    global.set('__moonpool_config_dir', this.config.configDir);
    global.set('__moonpool_cwd', this.config.cwd);
    global.set('__moonpool_spill_dir', this.config.spillDir);
    for (const file of PRELUDE_FILES) {
      global.loadString(readFileSync(PRELUDE_DIR + file, 'utf8'), '=[moonpool]');
      global.runSync(0);
    }
    global.lua.lua_getglobal(global.address, '__moonpool_entry');
    for (const name of ENTRY_NAMES) {
      global.lua.lua_getfield(global.address, -1, name);
      this.entries.set(name, global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX));
    }
    global.pop(1);
    for (const name of ['__moonpool_entry', '__moonpool_native', '__moonpool_config_dir', '__moonpool_cwd', '__moonpool_spill_dir']) {
      global.set(name, undefined);
    }
  }

  private natives(): Record<string, NativeFunction> {
    return {
      ...createFsNatives(this.config.cwd, this.config.sources, { configLoading: () => !this.discovery.loaded, chunkNames: this.chunkNames }),
      reply: (call) => {
        this.reply = call.value(1, 'reply');
        return [];
      },
      discovered: (call) => {
        this.reply = {
          definitions: this.readDefinitions(call.L),
          diagnostics: (call.value(2, 'problems') as LuaProblem[]).map((problem) => problemDiagnostic(problem, this.config.configFile)),
          logs: this.scope.logs,
        };
        return [];
      },
      ...this.output.natives,
      log: (call) => {
        this.logLine(call.string(1) ?? '');
        return [];
      },
      title: (call) => {
        this.scope.channel?.title(call.string(1) ?? '');
        this.sendPendingEvents();
        return [];
      },
      look_at_snapshot: (call) => {
        this.turns.checkpoint();
        return this.watch?.look(call.L, call.number(1) ?? 0) ?? [Number.MAX_SAFE_INTEGER];
      },
      snapshot_box: (call) => {
        const lua = this.engine.global.lua;
        lua.lua_pushvalue(call.L, 1);
        const box = new SnapshotBox(this.raw, this.stack, lua.luaL_ref(call.L, LUA_REGISTRYINDEX));
        this.watch = new SnapshotWatch(box, this.hook);
        return [];
      },
      capture: (call) => {
        const id = this.nextCaptureId++;
        const stdin = call.bytes(2);
        const outcome = runShell(call.bytes(1)!, {
          cwd: this.config.cwd,
          ...(stdin ? { stdin } : {}),
          pids: this.scope.pids,
          onStderr: (text) => this.scope.channel?.log(text),
        });
        return outcome.then((result) => {
          this.captures.set(id, result);
          return id;
        });
      },
      capture_result: (call) => {
        const id = call.number(1)!;
        const outcome = this.captures.get(id);
        this.captures.delete(id);
        if (!outcome) return [null, 'no result for this command'];
        return outcome.ok ? [outcome.stdout, outcome.code] : [null, outcome.message];
      },
    };
  }

  /** Reads `definitions` (argument 1) field by field, so one bad value spoils only its own tool. */
  private readDefinitions(L: number): RawToolDefinition[] {
    const lua = this.engine.global.lua;
    const count = Number(lua.lua_rawlen(L, 1));
    const definitions: RawToolDefinition[] = [];
    for (let i = 1; i <= count; i++) {
      this.raw._lua_rawgeti(L, 1, BigInt(i));
      const field = (name: string): unknown => {
        lua.lua_getfield(L, -1, name);
        try {
          return this.stack.readValue(L, -1, name);
        } finally {
          lua.lua_settop(L, -2);
        }
      };
      const definition: RawToolDefinition = {
        name: null,
        description: null,
        parameters: null,
        timeout: null,
        runType: field('run_type') as string,
        renderType: field('render_type') as string,
        availableType: field('available_type') as string,
        module: field('module') as string | null,
        file: field('file') as string,
        line: field('line') as number,
        unknownFields: field('unknown') as string[],
      };
      for (const name of ['name', 'description', 'parameters', 'timeout'] as const) {
        try {
          definition[name] = field(name);
        } catch (error) {
          if (!(error instanceof LuaConversionError)) throw error;
          definition.conversionError = error.message;
        }
      }
      definitions.push(definition);
      lua.lua_settop(L, -2);
    }
    return definitions;
  }
}

/** A problem the prelude reports: a located message, or a raised error whose text holds the location. */
interface LuaProblem {
  file?: string;
  line?: number;
  message?: string;
  error?: string;
  prefix?: string;
}

function problemDiagnostic(problem: LuaProblem, configFile: string): Diagnostic {
  if (problem.error !== undefined) {
    const diagnostic = errorDiagnostic(problem.error, problem.file ?? configFile);
    if (diagnostic.line === undefined && problem.line !== undefined) diagnostic.line = problem.line;
    return { ...diagnostic, message: `${problem.prefix ?? ''}${diagnostic.message}` };
  }
  const diagnostic: Diagnostic = { severity: 'error', message: problem.message ?? 'unknown problem' };
  if (problem.file !== undefined) diagnostic.file = problem.file;
  if (problem.line !== undefined) diagnostic.line = problem.line;
  return diagnostic;
}

/** A diagnostic from a Lua error message of the form `file:line: message`. */
export function errorDiagnostic(message: string, fallbackFile: string): Diagnostic {
  const match = /^(.+?):(\d+): ([\s\S]*)$/.exec(message);
  if (match) return { severity: 'error', file: match[1]!, line: Number(match[2]), message: match[3]! };
  return { severity: 'error', file: fallbackFile, message };
}
