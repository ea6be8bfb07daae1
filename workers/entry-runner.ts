// Runs the prelude's entry points on one Lua thread that is reset and reused for every task
// (a fresh wasmoon thread per call costs more than the call). A yield carrying a promise — what
// `:await()` does — is awaited, then the thread resumes: that is how `capture` waits.
import { LUA_REGISTRYINDEX, type LuaEngine, type LuaThread } from 'wasmoon';
import type { LuaRawApi, LuaStack } from './lua-stack.js';

/** What the runner lets its owner do while Lua runs. */
export interface RunnerHooks {
  /** Before the thread waits for a promise (a `capture`, say). */
  beforeWait(L: number): void;
  /** When the wait is over, before the thread resumes. */
  afterWait(): void;
}

const LUA_OK = 0;
const LUA_YIELD = 1;

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
  call<R>(functionRef: number, pushArguments: (L: number) => number, readResults: (L: number, count: number) => R): R | Promise<R> {
    const L = this.thread.address;
    let status: number;
    try {
      this.raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(functionRef));
      status = this.raw._lua_resume(L, 0, pushArguments(L), this.resultCountSlot);
    } catch (error) {
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
        const count = this.raw.HEAP32[this.resultCountSlot >> 2]!;
        const yielded: unknown = count > 0 ? this.thread.getValue(-1) : undefined;
        if (count > 0) this.raw._lua_settop(L, -count - 1);
        this.hooks.beforeWait(L);
        if (yielded instanceof Promise) await yielded;
        else await new Promise((resolve) => setImmediate(resolve));
        this.hooks.afterWait();
        status = this.raw._lua_resume(L, 0, 0, this.resultCountSlot);
      }
    } catch (error) {
      this.raw._lua_resetthread(L);
      throw error;
    }
    return this.finish(L, status, readResults);
  }

  /** Reads the results, resets the thread for the next call; throws the Lua error if the call failed. */
  private finish<R>(L: number, status: number, readResults: (L: number, count: number) => R): R {
    try {
      if (status !== LUA_OK) throw new Error(this.stack.stringAt(L, -1) ?? `Lua error (status ${status})`);
      return readResults(L, this.raw.HEAP32[this.resultCountSlot >> 2]!);
    } finally {
      this.raw._lua_resetthread(L);
    }
  }
}
