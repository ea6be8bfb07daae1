// Runs the prelude's entry points on one Lua thread, reset and reused for every task. A native
// that waits (`capture`) yields the thread with its promise; the runner awaits it and resumes.
// A tool's `run` is called by a nameless C function at the bottom of the thread, as lua5.4's host
// calls a script's main chunk: in a pcall, so its to-be-closed variables are closed where they can wait.
import type { LuaEngine, LuaThread } from 'wasmoon';
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LUA_TFUNCTION, LUA_TTHREAD, LuaConversionError, type LuaRawApi, type LuaStack } from './lua-stack.js';
import { NativeError, Pushed, type NativeFunction } from './lua-natives.js';
import { LUA_ERRMEM, LUA_ERRRUN, LuaEntryError, LuaStateBroken } from './lua-state-errors.js';

/** Registry references of the prelude's entry points a tool's call goes through (workers/lua/api.lua). */
export type ToolEntries = Record<'run' | 'ran' | 'failed', number>;

const LUA_OK = 0;
const LUA_YIELD = 1;
/** The stack index of the message handler `entry.run` hands over with `run` (see callTool). */
const MESSAGE_HANDLER_INDEX = 1;

type Settled = { values: unknown[] } | { error: unknown };

export class EntryRunner {
  private readonly thread: LuaThread;
  private readonly resultCountSlot: number;
  /** What the waiting native waits for, from its yield until the runner takes it. */
  private waiting: Promise<unknown[]> | undefined;
  /** What it got, until the native's continuation (a C function) returns it. */
  private outcome: Settled | undefined;
  private readonly continuation: number;
  /** The C function `run` is called by, and its continuation once `run` has waited. */
  private readonly protectedRun: number;
  private readonly protectedRunEnd: number;

  constructor(
    engine: LuaEngine,
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
    /** What the owner does around each wait of a native's. */
    private readonly hooks: { beforeWait(L: number): void; afterWait(): void },
  ) {
    const global = engine.global;
    this.thread = global.newThread();
    global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
    this.resultCountSlot = raw._malloc(4);
    this.continuation = raw.addFunction((L) => this.returnSettled(L), 'iiii');
    this.protectedRunEnd = raw.addFunction((L, status) => this.endProtectedRun(L, status), 'iiii');
    this.protectedRun = raw.addFunction(
      (L) =>
        this.endProtectedRun(
          L,
          raw._lua_pcallk(L, raw._lua_gettop(L) - 2, 1, MESSAGE_HANDLER_INDEX, 0, this.protectedRunEnd),
        ),
      'ii',
    );
  }

  /** A native's wait: `L` yields, and the native returns what `values` settles to (or raises its error). */
  wait(L: number, values: Promise<unknown[]>): number {
    if (L !== this.thread.address) throw new NativeError('cannot wait inside a coroutine of your own');
    // Where the thread cannot yield, Lua raises its own error and nothing waits.
    if (this.raw._lua_isyieldable(L) !== 0) this.waiting = values;
    return this.raw._lua_yieldk(L, 0, 0, this.continuation);
  }

  private returnSettled(L: number): number {
    const settled = this.outcome!;
    this.outcome = undefined;
    if ('error' in settled) {
      this.stack.pushString(L, settled.error instanceof Error ? settled.error.message : String(settled.error));
      return this.raw._lua_error(L);
    }
    for (const value of settled.values) this.stack.pushValue(L, value);
    return settled.values.length;
  }

  /** The state of the thread entry points run on. */
  get address(): number {
    return this.thread.address;
  }

  /**
   * `coroutine.yield`, `running` and `isyieldable` as natives that make the entry thread look like
   * the main thread, as `run` would be in native Lua; elsewhere they are Lua's own.
   */
  coroutineNatives(): Record<string, NativeFunction> {
    const raw = this.raw;
    return {
      yield: (call) => {
        if (call.L === this.address) throw new NativeError('attempt to yield from outside a coroutine', false);
        // Raises the yield (as luaB_yield does); the coroutine's resume later returns its values here.
        return new Pushed(raw._lua_yieldk(call.L, call.argc, 0, 0));
      },
      running: (call) => {
        const main = raw._lua_pushthread(call.L) !== 0;
        raw._lua_pushboolean(call.L, main || call.L === this.address ? 1 : 0);
        return new Pushed(2);
      },
      isyieldable: (call) => {
        const thread = raw._lua_type(call.L, 1) === LUA_TTHREAD ? raw._lua_tothread(call.L, 1) : call.L;
        return [thread !== this.address && raw._lua_isyieldable(thread) !== 0];
      },
    };
  }

  /** Calls the function at registry reference `functionRef`; `readResults` sees its results before the reset. */
  async call<R>(
    functionRef: number,
    pushArguments: (L: number) => number,
    readResults: (L: number, count: number) => R,
  ): Promise<R> {
    const L = this.thread.address;
    return this.finish(L, await this.settled(L, this.start(L, functionRef, pushArguments)), readResults);
  }

  /**
   * Runs a tool's call: `entries.run` returns a message handler, the tool's `run` and its
   * arguments, and `run` is called under the protected-run C function, the thread's bottom
   * function, so no frame of moonpool's is in its tracebacks. Its first result goes to
   * `entries.ran`; its error, once its to-be-closed variables are closed, to `entries.failed`.
   */
  async callTool<R>(
    entries: ToolEntries,
    pushArguments: (L: number) => number,
    readResults: (L: number, count: number) => R,
  ): Promise<R> {
    const L = this.thread.address;
    let status = await this.settled(L, this.start(L, entries.run, pushArguments));
    const count = this.resultCount();
    if (status === LUA_OK && count > 1 && this.raw._lua_type(L, -count) === LUA_TFUNCTION) {
      this.raw._lua_pushcclosure(L, this.protectedRun, 0);
      this.raw._lua_rotate(L, -count - 1, 1);
      status = await this.settled(L, this.resume(L, count));
      if (status === LUA_OK) {
        // `run`'s first result or its error, then the pcall's status.
        const runStatus = Number(this.raw._lua_tointegerx(L, -1, 0));
        this.raw._lua_settop(L, -2);
        this.raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(runStatus === LUA_OK ? entries.ran : entries.failed));
        this.raw._lua_rotate(L, -2, 1);
        if (runStatus !== LUA_OK) this.raw._lua_pushboolean(L, runStatus === LUA_ERRMEM ? 1 : 0);
        status = await this.settled(L, this.resume(L, runStatus === LUA_OK ? 1 : 2));
      }
    }
    return this.finish(L, status, readResults);
  }

  /** The protected run's end: `run`'s first result (or error), then the status (LUA_YIELD: it returned after a wait). */
  private endProtectedRun(L: number, status: number): number {
    this.raw._lua_pushinteger(L, BigInt(status === LUA_YIELD ? LUA_OK : status));
    return 2;
  }

  /** Pushes the function at registry reference `functionRef` and its arguments, and resumes it. */
  private start(L: number, functionRef: number, pushArguments: (L: number) => number): number {
    try {
      this.raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(functionRef));
      return this.resume(L, pushArguments(L));
    } catch (error) {
      // Arguments that cannot cross fail the entry; the thread is made ready for the next one.
      if (error instanceof LuaConversionError) this.reset(L);
      throw error;
    }
  }

  private resume(L: number, argumentCount: number): number {
    return this.raw._lua_resume(L, 0, argumentCount, this.resultCountSlot);
  }

  /** How many values the last resume returned (or yielded). */
  private resultCount(): number {
    return this.raw.HEAP32[this.resultCountSlot >> 2]!;
  }

  /** The status once a resume that returned `status` has finished: `L` resumed after each wait of a native's. */
  private async settled(L: number, status: number): Promise<number> {
    try {
      while (status === LUA_YIELD) {
        const waiting = this.waiting;
        this.waiting = undefined;
        if (waiting === undefined) {
          this.reset(L);
          throw new LuaEntryError(LUA_ERRRUN, 'attempt to yield from outside a coroutine');
        }
        this.hooks.beforeWait(L);
        this.outcome = await waiting.then(
          (values) => ({ values }),
          (error: unknown) => ({ error }),
        );
        this.hooks.afterWait();
        status = this.resume(L, 0);
      }
    } catch (error) {
      // Even a LuaConversionError: thrown through Lua's frames (a continuation's results), it broke the state.
      if (error instanceof LuaEntryError) throw error;
      throw new LuaStateBroken(error);
    }
    return status;
  }

  /** The text of the error at the top of the thread's stack: a string, or an error a native threw. */
  private errorText(): string | null {
    const thread = this.thread;
    const L = thread.address;
    const text = this.stack.stringAt(L, -1);
    if (text !== null || this.stack.typeNameAt(L, -1) !== 'userdata') return text;
    const value: unknown = thread.getValue(-1);
    return value instanceof Error ? value.message : null;
  }

  /** Readies `L` for the next call: a reset leaves a failed thread's error on its stack, which is emptied too. */
  private reset(L: number): void {
    this.raw._lua_resetthread(L);
    this.raw._lua_settop(L, 0);
  }

  /** Reads the results, resets the thread for the next call; throws a LuaEntryError if the call failed. */
  private finish<R>(L: number, status: number, readResults: (L: number, count: number) => R): R {
    try {
      if (status !== LUA_OK) throw new LuaEntryError(status, this.errorText() ?? `Lua error (status ${status})`);
      return readResults(L, this.resultCount());
    } finally {
      this.reset(L);
    }
  }
}
