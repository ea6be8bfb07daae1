// One Lua state per worker: wasmoon with the moonpool prelude, the user's config evaluated
// once, and the entry points (discover, run, available) each run on a fresh Lua thread so that
// `capture` can await and no call disturbs the global stack.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LuaFactory, LUA_REGISTRYINDEX } from 'wasmoon';
import type { LuaEngine } from 'wasmoon';
import type {
  AvailableReply,
  CallContext,
  Diagnostic,
  DiscoveryReport,
  RawToolDefinition,
  RunFailure,
  RunReply,
  WorkerConfig,
} from '../core/protocol.js';
import { runShell, type CaptureOutcome } from './capture.js';
import { ChildPidTable } from './child-pids.js';
import { installNatives, type NativeFunction } from './lua-natives.js';
import { LuaConversionError, LuaStack, type LuaRawApi } from './lua-stack.js';
import { createFsNatives } from './fs-natives.js';
import { EntryRunner } from './entry-runner.js';
import type { SnapshotChannel } from './snapshot-channel.js';

const PRELUDE_DIR = fileURLToPath(new URL('../../workers/lua/', import.meta.url));
const PRELUDE_FILES = ['shell.lua', 'io.lua', 'api.lua'] as const;
const ENTRY_NAMES = ['load', 'discover', 'run', 'available'] as const;
type EntryName = (typeof ENTRY_NAMES)[number];

/** The per-task state natives need: where output goes and where child pids are recorded. */
interface TaskScope {
  pids: ChildPidTable | null;
  channel: SnapshotChannel | null;
  logs: string[];
}

/** Outside a task: output is dropped and no pids are recorded. */
const IDLE_SCOPE: TaskScope = { pids: null, channel: null, logs: [] };

export class LuaRuntime {
  private readonly stack: LuaStack;
  private readonly raw: LuaRawApi;
  private readonly runner: EntryRunner;
  private readonly entries = new Map<EntryName, number>();
  private readonly captures = new Map<number, CaptureOutcome>();
  private nextCaptureId = 1;
  private reply: unknown = undefined;
  private scope: TaskScope = IDLE_SCOPE;
  private discovery: DiscoveryReport = { loaded: false, definitions: [], diagnostics: [], logs: [] };

  private constructor(
    private readonly engine: LuaEngine,
    private readonly config: WorkerConfig,
  ) {
    this.raw = engine.global.lua.module as unknown as LuaRawApi;
    this.stack = new LuaStack(this.raw);
    this.runner = new EntryRunner(engine, this.raw, this.stack);
  }

  /** Creates the Lua state, evaluates the config and runs discovery. Lua errors become diagnostics. */
  static async create(config: WorkerConfig, pidRow: number): Promise<LuaRuntime> {
    const engine = await new LuaFactory().createEngine({ traceAllocations: true, enableProxy: false, injectObjects: false });
    const runtime = new LuaRuntime(engine, config);
    runtime.installPrelude();
    engine.global.setMemoryMax(config.memoryLimitBytes);
    await runtime.loadAndDiscover(pidRow);
    return runtime;
  }

  discoveryReport(): DiscoveryReport {
    return this.discovery;
  }

  async run(context: CallContext, args: unknown, pidRow: number, channel: SnapshotChannel): Promise<RunReply> {
    if (!this.discovery.loaded) {
      return { content: 'the config failed to load in this worker', isError: true, failure: 'not_loaded' };
    }
    const reply = await this.invoke('run', this.scopeFor(pidRow, channel), (L) => {
      this.stack.pushString(L, context.tool);
      this.stack.pushValue(L, args);
      this.stack.pushString(L, context.callId);
      return 3;
    });
    const { content, isError, failure } = reply as { content: string; isError: boolean; failure?: RunFailure };
    const delivery = channel.drain();
    if (delivery) await delivery;
    const result: RunReply = { content, isError, ...channel.final() };
    if (failure) result.failure = failure;
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

  private scopeFor(pidRow: number, channel: SnapshotChannel | null): TaskScope {
    return { pids: new ChildPidTable(this.config.pids, pidRow, this.config.pidSlotsPerRow), channel, logs: [] };
  }

  private async loadAndDiscover(pidRow: number): Promise<void> {
    const scope = this.scopeFor(pidRow, null);
    const loaded = (await this.invoke('load', scope, (L) => (this.stack.pushString(L, this.config.configFile), 1))) as { ok: boolean; error?: string };
    if (!loaded.ok) {
      const diagnostic = errorDiagnostic(loaded.error ?? 'unknown error', this.config.configFile);
      this.discovery = { loaded: false, definitions: [], diagnostics: [diagnostic], logs: scope.logs };
      return;
    }
    await this.invoke('discover', scope, () => 0);
    this.discovery = { ...(this.reply as Omit<DiscoveryReport, 'loaded'>), loaded: true };
  }

  /**
   * Runs a prelude entry point with `scope` in force and returns what it replied with
   * (`native.reply`, `native.run_reply`).
   */
  private async invoke(entry: EntryName, scope: TaskScope, pushArguments: (L: number) => number): Promise<unknown> {
    this.scope = scope;
    this.reply = undefined;
    try {
      const pending = this.runner.call(this.entries.get(entry)!, pushArguments);
      if (pending) await pending;
      return this.reply;
    } finally {
      this.scope = IDLE_SCOPE;
    }
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
      ...createFsNatives(this.config.cwd),
      reply: (call) => {
        this.reply = call.value(1, 'reply');
        return [];
      },
      run_reply: (call) => {
        const failure = call.string(3);
        this.reply = { content: call.string(1) ?? '', isError: call.boolean(2), ...(failure === null ? {} : { failure }) };
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
      log: (call) => {
        const text = call.string(1) ?? '';
        if (this.scope.channel) this.scope.channel.log(text);
        else this.scope.logs.push(text);
        return [];
      },
      title: (call) => {
        this.scope.channel?.title(call.string(1) ?? '');
        return [];
      },
      show: (call) => {
        try {
          const state = call.value(1, 'state', { invalidUtf8: 'bytes' });
          this.scope.channel?.show(state);
          return [true];
        } catch (error) {
          if (error instanceof LuaConversionError) return [false, error.message];
          throw error;
        }
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
