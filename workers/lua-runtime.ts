// One Lua state per worker: wasmoon with the moonpool prelude, the user's config evaluated
// once, and the entry points (load, discover, run, available, render) run on one reusable Lua
// thread (entry-runner.ts) so that `capture` can await and no call disturbs the global stack.
// A `run` also sends its live events (call-channel.ts) and takes CPU turns (cpu-turns.ts).
import { isUtf8 } from 'node:buffer';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createEngine, LuaReturn, LUA_REGISTRYINDEX } from './wasmoon.js';
import type { LuaEngine } from 'wasmoon';
import type {
  RunFailure,
  RenderReply,
  RenderView,
  AskQuestion,
  AvailableReply,
  CallContext,
  DiscoveryReport,
  RunReply,
  ToolPermissions,
  WorkerConfig,
} from '../shared/protocol.js';
import { PermissionGuard } from './permission-guard.js';
import { CpuSlots } from '../shared/cpu-slots.js';
import type { TaskRow, TaskTable } from '../shared/task-table.js';
import { installNatives, Pushed, type NativeCall, type NativeFunction } from './lua-natives.js';
import { decodeLuaText, describeBytes, LuaConversionError, LuaStack, ReadBudget, type LuaRawApi } from './lua-stack.js';
import { createFsNatives } from './fs-natives.js';
import { createProcessNatives } from './process-natives.js';
import { ChunkNames } from './chunk-names.js';
import { createOutputNatives, type OutputNatives } from './output-natives.js';
import { EntryRunner } from './entry-runner.js';
import { errorDiagnostic, readDiscovery } from './discovery-reader.js';
import { LUA_ERRRUN, LuaEntryError, LuaStateBroken } from './lua-state-errors.js';
import { PRELUDE_CHUNK_NAME, preludeDump } from './prelude-chunks.js';
import { CountHook } from './count-hook.js';
import { libraryTables } from './library-tables.js';
import { createDebugHookNatives } from './debug-hook-natives.js';
import { CpuTurns } from './cpu-turns.js';
import { SnapshotBox } from './snapshot-box.js';
import { SnapshotDecoder } from './snapshot-decoder.js';
import { droppedLogNote, lineCost, LOG_LIMIT_CHARS, type CallChannel } from './call-channel.js';

const PRELUDE_DIR = fileURLToPath(new URL('../../workers/lua/', import.meta.url));
/** Where the build writes the prelude's bytecode (prelude-chunks.ts). */
const PRELUDE_CHUNK_DIR = fileURLToPath(new URL('./lua/', import.meta.url));
const PRELUDE_FILES = ['shell.lua', 'io.lua', 'compat.lua', 'process.lua', 'ask.lua', 'api.lua'] as const;
const ENTRY_NAMES = ['load', 'discover', 'run', 'ran', 'failed', 'available', 'render'] as const;

/** The largest result (`content`) a `run` may return. */
export const RESULT_LIMIT_BYTES = 16 * 1024 * 1024;
/** The longest `ctx:title` (the prelude refuses longer ones at the tool's line). */
export const TITLE_LIMIT_BYTES = 1024;
/** What `render` (its lines) and `available` may hand back. */
export const REPLY_LIMIT_BYTES = 4 * 1024 * 1024;
type EntryName = (typeof ENTRY_NAMES)[number];

/** What each entry point but `run` returns (workers/lua/api.lua builds these shapes). */
interface EntryReplies {
  load: { ok: boolean; error?: string };
  discover: Omit<DiscoveryReport, 'loaded' | 'logs'>;
  available: AvailableReply;
  render: RenderReply;
}

/** The per-task state natives need. */
export interface TaskScope {
  taskRow: TaskRow | null;
  channel: CallChannel | null;
  /** Output of a task without a channel (loading the config): lines up to LOG_LIMIT_CHARS, then only counted. */
  log: { lines: string[]; chars: number; dropped: number };
  /** A time budget (a render's, the config's load): Lua is stopped with `message` past `deadline` (Date.now() ms). */
  budget?: { deadline: number; message: string };
  /** What the task's tool may touch. */
  guard: PermissionGuard;
}

/** Outside a task: no process groups are recorded. */
const IDLE_SCOPE: TaskScope = {
  taskRow: null,
  channel: null,
  log: { lines: [], chars: 0, dropped: 0 },
  guard: PermissionGuard.UNRESTRICTED,
};

/** Makes an entry's own Lua error (a LuaEntryError) into a reply; any other failure is thrown on. */
function onEntryError<T>(reply: (message: string) => T): (error: unknown) => T {
  return (error) => {
    if (!(error instanceof LuaEntryError)) throw error;
    return reply(error.message);
  };
}

export class LuaRuntime {
  private readonly stack: LuaStack;
  private readonly runner: EntryRunner;
  private readonly hook: CountHook;
  private readonly turns: CpuTurns;
  private readonly output: OutputNatives;
  private readonly processes: ReturnType<typeof createProcessNatives>;
  private readonly chunkNames = new ChunkNames();
  private readonly snapshots: SnapshotBox;
  private readonly entries = {} as Record<EntryName, number>;
  private renderSnapshot: Uint8Array | undefined;
  private readonly decoder: SnapshotDecoder;
  private scope: TaskScope = IDLE_SCOPE;
  private discovery: DiscoveryReport = { loaded: false, definitions: [], diagnostics: [], logs: [] };
  /** Why the config did not load, `file:line: message`, once a load failed. */
  private loadError = 'the config was not loaded';
  /** Set once the state broke: every later task is refused and the worker discards this runtime. */
  private broken: LuaStateBroken | undefined;
  /** Allocations the heap cap refused since the state was created (see capHeap). */
  private refusals = 0;

  private constructor(
    private readonly engine: LuaEngine,
    private readonly config: WorkerConfig,
    private readonly tasks: TaskTable,
    /** wasmoon's module, its Lua functions called directly (wasmoon.ts). */
    private readonly raw: LuaRawApi,
  ) {
    this.stack = new LuaStack(this.raw);
    this.decoder = new SnapshotDecoder(this.raw, this.stack);
    this.turns = new CpuTurns(new CpuSlots(config.cpuSlots));
    this.output = createOutputNatives(this.raw, this.stack, (text) => this.logLine(text));
    this.processes = createProcessNatives(this.config.cwd, () => this.scope);
    // Lua's own warnings (an error in a finalizer) take `warn`'s path: the call's log, after `@on`.
    const warnf = this.raw.addFunction(
      (_userData, message, toContinue) => this.output.warning(this.stack.cStringAt(message), toContinue !== 0),
      'viii',
    );
    this.raw._lua_setwarnf(engine.global.address, warnf, 0);
    this.runner = new EntryRunner(engine, this.raw, this.stack, {
      beforeWait: (L) => {
        this.snapshots.beforeWait(L);
        this.scope.channel?.sendEvents();
        this.hook.release('events');
        this.turns.pause();
      },
      afterWait: () => this.turns.resume(),
    });
    this.hook = new CountHook(
      this.raw,
      this.stack,
      (L) => {
        this.stopAtDeadline(L);
        this.snapshots.tick(L);
        this.sendPendingEvents();
        this.turns.checkpoint();
      },
      this.cString('_HOOKKEY'),
    );
    // The box ctx:show leaves its state in, which the prelude takes as `__moonpool_snapshot_box`.
    const L = engine.global.address;
    raw._lua_createtable(L, 1, 0);
    raw._lua_pushvalue(L, -1);
    engine.global.lua.lua_setglobal(L, '__moonpool_snapshot_box');
    this.snapshots = new SnapshotBox(raw, this.stack, engine.global.lua.luaL_ref(L, LUA_REGISTRYINDEX), this.hook);
  }

  /** A NUL-terminated copy of `text` in the wasm heap, kept for the runtime's life. */
  private cString(text: string): number {
    const bytes = Buffer.from(`${text}\0`, 'utf8');
    const pointer = this.raw._malloc(bytes.length);
    this.raw.HEAPU8.set(bytes, pointer);
    return pointer;
  }

  /** Sends a pending title and log lines once due; the hook keeps looking while some wait. */
  private sendPendingEvents(): void {
    const { channel } = this.scope;
    channel?.sendEventsIfDue();
    if (channel?.eventsPending) this.hook.hold(this.runner.address, 'events');
    else this.hook.release('events');
  }

  /** One line of the task's log; past what the log may still hold, it is only counted. */
  private logLine(line: string): void {
    const text = this.chunkNames.expand(line);
    const { channel, log } = this.scope;
    if (channel) {
      channel.log(text);
      return this.sendPendingEvents();
    }
    if (LOG_LIMIT_CHARS - log.chars < lineCost(text)) log.dropped++;
    else {
      log.chars += lineCost(text);
      log.lines.push(text);
    }
  }

  /** Where console output from inside the worker goes: the running call's log, if any. */
  logToCall(text: string): void {
    this.scope.channel?.log(text);
  }

  /** A Lua state with the prelude installed, the config not yet loaded (a warmed worker makes it early). */
  static async prepare(config: WorkerConfig, tasks: TaskTable): Promise<LuaRuntime> {
    const { engine, raw } = await createEngine<LuaRawApi>(config.luaModule);
    const runtime = new LuaRuntime(engine, config, tasks, raw);
    runtime.installPrelude();
    runtime.capHeap(engine.global.getMemoryUsed(), config.memoryLimitBytes);
    return runtime;
  }

  /**
   * The Lua heap cap: wasmoon's allocator (its `usedBytes` so far) with a limit, counting what it
   * refused: only the count tells the cap from a tool raising 'not enough memory' itself.
   */
  private capHeap(usedBytes: number, limitBytes: number): void {
    const allocator = this.raw.addFunction((_userData, pointer, oldSize, newSize) => {
      if (newSize === 0) {
        if (pointer) {
          usedBytes -= oldSize;
          this.raw._free(pointer);
        }
        return 0;
      }
      const used = usedBytes + (pointer ? newSize - oldSize : newSize);
      if (newSize > oldSize && used > limitBytes) {
        this.refusals++;
        return 0;
      }
      const reallocated = this.raw._realloc(pointer, newSize);
      if (reallocated) usedBytes = used;
      else this.refusals++;
      return reallocated;
    }, 'iiiii');
    this.raw._lua_setallocf(this.engine.global.address, allocator, 0);
  }

  /**
   * Evaluates the config and runs discovery, for the task in `row` (Lua errors become diagnostics);
   * returns this runtime. Past `budgetMs` the Lua running is stopped with an error at its line.
   */
  async load(row: number, budgetMs?: number): Promise<LuaRuntime> {
    const scope: TaskScope = this.scopeFor(row, null);
    if (budgetMs !== undefined) {
      const message = `loading the config took longer than ${budgetMs / 1000} s (an endless loop at load time?)`;
      scope.budget = { deadline: Date.now() + budgetMs, message };
      this.hook.hold(this.runner.address, 'budget');
    }
    const failed = onEntryError((error) => ({ ok: false as const, error }));
    const configFile = (L: number): number => (this.stack.pushString(L, this.config.configFile), 1);
    const loadAndDiscover = async () => {
      const loaded = await this.invokeForReply('load', scope, configFile).catch(failed);
      return loaded.ok ? this.invokeForReply('discover', scope, () => 0).catch(failed) : loaded;
    };
    const discovered = await loadAndDiscover().finally(() => this.hook.release('budget'));
    const { log } = scope;
    if (log.dropped > 0) log.lines.push(droppedLogNote("the config's log while it loaded", log.dropped));
    if (!('definitions' in discovered)) this.loadError = discovered.error ?? 'unknown error';
    this.discovery =
      'definitions' in discovered
        ? { ...discovered, loaded: true, logs: log.lines }
        : {
            loaded: false,
            definitions: [],
            diagnostics: [errorDiagnostic(this.loadError, this.config.configFile)],
            logs: log.lines,
          };
    return this;
  }

  /** Whether the config loaded: a state where it did not serves one task, then the worker makes a fresh one. */
  get loaded(): boolean {
    return this.discovery.loaded;
  }

  discoveryReport(): DiscoveryReport {
    return this.discovery;
  }

  async run(context: CallContext, args: unknown, row: number, channel: CallChannel): Promise<RunReply> {
    if (!this.discovery.loaded) {
      return { content: this.loadError, isError: true, failure: 'not_loaded' };
    }
    this.snapshots.begin(this.runner.address, channel);
    this.turns.begin(this.tasks.words, this.tasks.seat(row));
    const refusals = this.refusals;
    let reply: RunReply;
    try {
      reply = await this.invoke(this.scopeFor(row, channel, context.permissions), () =>
        this.runner.callTool(
          this.entries,
          (L) => {
            this.stack.pushString(L, context.tool);
            this.stack.pushValue(L, args);
            this.stack.pushString(L, context.callId);
            return 3;
          },
          (L, count) => this.readRunResults(L, count, context.tool),
        ),
      ).catch((error: unknown): RunReply => {
        // An error raised outside the tool's `run` (a stray yield, the cap hit making the reply) is the reply.
        if (!(error instanceof LuaEntryError)) {
          this.snapshots.finish(false);
          throw error;
        }
        return { content: error.message, isError: true, failure: error.outOfMemory ? 'out_of_memory' : 'lua_error' };
      });
    } finally {
      // The call's Lua has ended: its turn and its hook are given back.
      this.hook.release('events');
      this.turns.end();
    }
    // A memory error with no allocation refused was raised by the tool itself: an ordinary error.
    // One met while the error was being reported (a huge __tostring) is the cap all the same.
    const capHit = this.refusals !== refusals;
    if (reply.failure === 'out_of_memory' && !capHit) reply.failure = 'lua_error';
    else if (reply.failure === 'lua_error' && capHit && reply.content === 'not enough memory')
      reply.failure = 'out_of_memory';
    const problem = this.snapshots.finish(true);
    await channel.drain();
    // The reply gets the title and last state its channel saw; a last state that could not be kept makes it an error.
    channel.addFinal(reply);
    if (problem !== undefined && !reply.isError)
      Object.assign(reply, { content: problem, isError: true, failure: 'lua_error' });
    return reply;
  }

  async available(context: CallContext, row: number): Promise<AvailableReply> {
    return this.invokeForReply('available', this.scopeFor(row, null, context.permissions), (L) => {
      this.stack.pushString(L, context.tool);
      this.stack.pushString(L, context.callId);
      return 2;
    }).catch(onEntryError((message) => ({ available: false, reason: `available() failed: ${message}` })));
  }

  /** Renders a snapshot with the tool's `render`, stopping it at `budgetMs`. */
  async render(
    tool: string,
    snapshot: Uint8Array,
    view: RenderView,
    budgetMs: number,
    row: number,
    permissions?: ToolPermissions,
  ): Promise<RenderReply> {
    if (!this.discovery.loaded)
      return { ok: false, reason: `the config failed to load in this worker: ${this.loadError}` };
    const scope = {
      ...this.scopeFor(row, null, permissions),
      budget: { deadline: Date.now() + budgetMs, message: `took longer than its ${budgetMs} ms budget` },
    };
    this.hook.hold(this.runner.address, 'budget');
    try {
      // Decoded by `render_state`, inside Lua: a state too big for the heap is an error of this render.
      this.renderSnapshot = snapshot;
      return await this.invokeForReply('render', scope, (L) => {
        this.stack.pushString(L, tool);
        this.stack.pushValue(L, view);
        return 2;
      }).catch(onEntryError((message): RenderReply => ({ ok: false, reason: `render failed: ${message}` })));
    } finally {
      this.renderSnapshot = undefined;
      this.hook.release('budget');
    }
  }

  /** Raises an error in Lua once the task's deadline has passed (and at every tick after). */
  private stopAtDeadline(L: number): void {
    const { budget } = this.scope;
    if (budget === undefined || Date.now() <= budget.deadline) return;
    this.stack.pushString(L, budget.message);
    this.raw._lua_error(L);
  }

  private scopeFor(row: number, channel: CallChannel | null, permissions?: ToolPermissions): TaskScope {
    const guard = PermissionGuard.of(permissions, this.config);
    return { taskRow: { table: this.tasks, row }, channel, log: { lines: [], chars: 0, dropped: 0 }, guard };
  }

  /** Runs a prelude entry point that returns its reply; the reply has the entry's shape. */
  private async invokeForReply<E extends keyof EntryReplies>(
    entry: E,
    scope: TaskScope,
    pushArguments: (L: number) => number,
  ): Promise<EntryReplies[E]> {
    return this.invoke(scope, () =>
      this.runner.call(this.entries[entry], pushArguments, (L) => this.readReply(entry, L) as EntryReplies[E]),
    );
  }

  /** Runs prelude entry points in `scope` (`call` runs them): what `call` made of their results, paths whole. */
  private async invoke<R>(scope: TaskScope, call: () => Promise<R>): Promise<R> {
    this.refuseIfBroken();
    this.scope = scope;
    try {
      const value = await call();
      this.refuseIfBroken();
      return this.chunkNames.expandAll(value);
    } catch (error) {
      // The Lua code's own error; any other failure (a trap, a native's fault) breaks the state for good.
      if (this.broken || error instanceof LuaEntryError || error instanceof LuaConversionError)
        throw this.broken ?? error;
      throw (this.broken = error instanceof LuaStateBroken ? error : new LuaStateBroken(error));
    } finally {
      // The task's last partial line goes to its log before its processes are ended.
      this.output.endTask();
      this.processes.endTask();
      scope.taskRow?.table.endTask(scope.taskRow.row, true);
      this.scope = IDLE_SCOPE;
    }
  }

  /** A broken state runs nothing more (a native may have seen a trap that Lua then caught). */
  private refuseIfBroken(): void {
    if (this.broken) throw this.broken;
  }

  /** What an entry returned (discovery's definitions and problems, or a reply); one unreadable fails the entry. */
  private readReply(entry: keyof EntryReplies, L: number): unknown {
    try {
      if (entry !== 'discover') return this.stack.readValue(L, 1, 'reply', new ReadBudget(REPLY_LIMIT_BYTES, 'reply'));
      return readDiscovery(this.engine.global.lua, this.stack, L, this.config.configFile);
    } catch (error) {
      if (!(error instanceof LuaConversionError)) throw error;
      throw new LuaEntryError(LUA_ERRRUN, error.message);
    }
  }

  /** `entry.run`'s results: content, is_error, failure and structured. */
  private readRunResults(L: number, count: number, tool: string): RunReply {
    const base = this.raw._lua_gettop(L) - count;
    const length = this.stack.byteLengthAt(L, base + 1);
    if (length > RESULT_LIMIT_BYTES) {
      const content = `run returned a result of ${length.toLocaleString('en-US')} bytes, more than the ${describeBytes(RESULT_LIMIT_BYTES)} a result may hold; write large output to a file in ctx.spill_dir and return a summary`;
      return { content, isError: true, failure: 'lua_error' };
    }
    const content = this.stack.bytesAt(L, base + 1);
    const failure = this.stack.stringAt(L, base + 3);
    const reply: RunReply = {
      content: content === null ? '' : decodeLuaText(content),
      isError: this.stack.booleanAt(L, base + 2),
      // Content that is not UTF-8 also goes as its bytes.
      ...(content === null || isUtf8(content) ? {} : { rawContent: new Uint8Array(content) }),
      ...(failure === null ? {} : { failure: failure as RunFailure }),
    };
    if (count >= 4 && this.stack.typeNameAt(L, base + 4) === 'table') {
      try {
        const budget = new ReadBudget(RESULT_LIMIT_BYTES, 'structured');
        reply.structured = this.stack.readValue(L, base + 4, 'structured', budget);
      } catch (error) {
        if (!(error instanceof LuaConversionError)) throw error;
        const content = `${tool}: run returned a \`structured\` that cannot be sent: ${error.message}`;
        return { content, isError: true, failure: 'bad_return' };
      }
    }
    return reply;
  }

  /** Pushes a prelude file as a function: its bytecode from the build when that matches the source, else the source parsed. */
  private loadPreludeFile(file: string): void {
    const { global } = this.engine;
    const source = readFileSync(PRELUDE_DIR + file);
    const chunk = PRELUDE_CHUNK_DIR + file + 'c';
    const dump = existsSync(chunk) ? preludeDump(readFileSync(chunk), source) : undefined;
    if (dump !== undefined) {
      const pointer = this.raw._malloc(dump.length);
      this.raw.HEAPU8.set(dump, pointer);
      const status = global.lua.luaL_loadbufferx(global.address, pointer, dump.length, PRELUDE_CHUNK_NAME, 'b');
      this.raw._free(pointer);
      if (status === LuaReturn.Ok) return;
      global.pop(1);
    }
    global.loadString(source.toString('utf8'), PRELUDE_CHUNK_NAME);
  }

  private installPrelude(): void {
    const global = this.engine.global;
    // What a native throws becomes a catchable Lua error; a trap breaks the state all the same.
    installNatives(this.engine, this.stack, '__moonpool_native', this.natives(), {
      wait: (L, values) => this.runner.wait(L, values),
      trapped: (error) => (this.broken ??= new LuaStateBroken(error)),
    });
    const { configDir, configFile, cwd, spillDir } = this.config;
    const settings = { config_dir: configDir, config_file: configFile, cwd, spill_dir: spillDir };
    for (const [name, value] of Object.entries(settings)) global.set(`__moonpool_${name}`, value);
    for (const file of PRELUDE_FILES) {
      this.loadPreludeFile(file);
      global.runSync(0);
    }
    global.lua.lua_getglobal(global.address, '__moonpool_entry');
    for (const name of ENTRY_NAMES) {
      global.lua.lua_getfield(global.address, -1, name);
      this.entries[name] = global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
    }
    global.pop(1);
    for (const name of ['entry', 'native', 'snapshot_box', ...Object.keys(settings)])
      global.set(`__moonpool_${name}`, undefined);
    this.stack.libraries = libraryTables(global.lua, global.address);
  }

  private natives(): Record<string, NativeFunction> {
    return {
      ...createFsNatives(
        this.config,
        this.chunkNames,
        () => !this.discovery.loaded,
        () => this.scope.guard,
      ),
      ...this.processes.natives,
      // 5.3's `math.cosh`, `sinh` and `tanh` (lua/compat.lua): JavaScript's are within an ulp, as C's are.
      ...Object.fromEntries(
        (['cosh', 'sinh', 'tanh'] as const).map((name) => [
          name,
          (call: NativeCall) => [Math[name](call.number(1) ?? Number.NaN)],
        ]),
      ),
      // `os.clock` (lua/io.lua): seconds since the worker started, always a float. emscripten's
      // `clock()` counts microseconds in 32 bits and sticks at -2147.48 once a worker is 35.8 minutes old.
      clock: (call) => {
        this.raw._lua_pushnumber(call.L, performance.now() / 1000);
        return new Pushed(1);
      },
      // `ctx:ask` (lua/ask.lua checks the question): the host's answer, or nil and the reason.
      ask: async (call) => {
        const question = call.value(1, 'question') as AskQuestion;
        const answer = (await this.scope.channel?.ask(question)) ?? { refused: 'unavailable' };
        return 'answer' in answer ? [answer.answer] : [null, answer.refused];
      },
      ...this.output.natives,
      title: (call) => {
        // ctx:title refuses longer titles at the tool's line; this holds for a native reached otherwise.
        if (this.stack.byteLengthAt(call.L, 1) > TITLE_LIMIT_BYTES) return [];
        this.scope.channel?.title(call.string(1) ?? '');
        this.sendPendingEvents();
        return [];
      },
      ...createDebugHookNatives(this.raw, this.stack, this.hook, (text) => this.cString(text)),
      ...this.runner.coroutineNatives(),
      render_state: (call) => {
        if (this.stack.typeNameAt(call.L, 1) !== 'table') return [];
        this.decoder.push(call.L, this.renderSnapshot ?? new Uint8Array(0));
        this.raw._lua_rawseti(call.L, 1, 1n);
        return [];
      },
      look_at_snapshot: (call) => {
        this.turns.checkpoint();
        return this.snapshots.look(call.L, call.number(1) ?? 0);
      },
    };
  }
}
