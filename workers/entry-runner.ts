// Runs the prelude's entry points on one Lua thread that is reset and reused for every task
// (a fresh wasmoon thread per call costs more than the call). A yield carrying a promise — what
// `:await()` does — is awaited, then the thread resumes: that is how `capture` waits. Any other
// yield reaching the runner is refused as native Lua refuses it; a trap breaks the state for good.
import type { LuaEngine, LuaThread } from 'wasmoon';
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LuaConversionError, type LuaRawApi, type LuaStack } from './lua-stack.js';
import { LUA_ERRRUN, LuaEntryError, LuaStateBroken } from './lua-state-errors.js';

/** What the runner lets its owner do while Lua runs. */
export interface RunnerHooks {
  /** Before the thread waits for a promise (a `capture`, say). */
  beforeWait(L: number): void;
  /** When the wait is over, before the thread resumes. */
  afterWait(): void;
}

const LUA_OK = 0;
const LUA_YIELD = 1;
/** wasmoon's metatable name for a JavaScript promise pushed to Lua (what `:await()` yields). */
const PROMISE_METATABLE = 'js_promise';

export class EntryRunner {
  private readonly thread: LuaThread;
  private readonly resultCountSlot: number;

  constructor(
    engine: LuaEngine,
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
    private readonly hooks: RunnerHooks,
  ) {
    const global = engine.global;
    this.thread = global.newThread();
    // Anchored in the registry, so the thread is never collected and the global stack stays clean.
    global.lua.luaL_ref(global.address, LUA_REGISTRYINDEX);
    this.resultCountSlot = raw._malloc(4);
  }

  /** The state of the thread entry points run on. */
  get address(): number {
    return this.thread.address;
  }

  /**
   * Calls the function at registry reference `functionRef` with the arguments `pushArguments`
   * pushes; `readResults` sees what it returned (`count` values on top of the stack) before the
   * thread is reset. Returns a promise only when the Lua code yields (awaits); most calls
   * finish at once.
   */
  call<R>(
    functionRef: number,
    pushArguments: (L: number) => number,
    readResults: (L: number, count: number) => R,
  ): R | Promise<R> {
    const L = this.thread.address;
    let status: number;
    try {
      this.raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(functionRef));
      const argumentCount = pushArguments(L);
      status = this.raw._lua_resume(L, 0, argumentCount, this.resultCountSlot);
    } catch (error) {
      if (!(error instanceof LuaConversionError)) throw new LuaStateBroken(error);
      this.raw._lua_resetthread(L);
      throw error;
    }
    if (status === LUA_YIELD) return this.resumeAfterYields(L, readResults);
    return this.finish(L, status, readResults);
  }

  private async resumeAfterYields<R>(L: number, readResults: (L: number, count: number) => R): Promise<R> {
    let status = LUA_YIELD;
    try {
      while (status === LUA_YIELD) {
        const awaited = this.awaitedPromise(L);
        if (awaited === undefined) {
          this.raw._lua_resetthread(L);
          throw new LuaEntryError(LUA_ERRRUN, 'attempt to yield from outside a coroutine');
        }
        this.raw._lua_settop(L, -2);
        this.hooks.beforeWait(L);
        await awaited;
        this.hooks.afterWait();
        status = this.raw._lua_resume(L, 0, 0, this.resultCountSlot);
      }
    } catch (error) {
      if (error instanceof LuaEntryError) throw error;
      throw new LuaStateBroken(error);
    }
    return this.finish(L, status, readResults);
  }

  /** The text of the error at the top of the stack: a string, or an error a native threw. */
  private errorText(L: number): string | null {
    const text = this.stack.stringAt(L, -1);
    if (text !== null || this.stack.typeNameAt(L, -1) !== 'userdata') return text;
    const value: unknown = this.thread.getValue(-1);
    return value instanceof Error ? value.message : null;
  }

  /**
   * The promise an `:await()` yielded: exactly one value, wasmoon's promise userdata. Anything
   * else is a yield moonpool did not make (the raw `coroutine.yield`, reached some other way).
   */
  private awaitedPromise(L: number): Promise<unknown> | undefined {
    const count = this.raw.HEAP32[this.resultCountSlot >> 2]!;
    if (count !== 1 || this.thread.lua.luaL_testudata(L, -1, PROMISE_METATABLE) === 0) return undefined;
    const value: unknown = this.thread.getValue(-1);
    return value instanceof Promise ? value : undefined;
  }

  /** Reads the results, resets the thread for the next call; throws a LuaEntryError if the call failed. */
  private finish<R>(L: number, status: number, readResults: (L: number, count: number) => R): R {
    try {
      if (status !== LUA_OK) throw new LuaEntryError(status, this.errorText(L) ?? `Lua error (status ${status})`);
      return readResults(L, this.raw.HEAP32[this.resultCountSlot >> 2]!);
    } finally {
      this.raw._lua_resetthread(L);
    }
  }
}
