// How JavaScript functions are offered to the Lua prelude: each native reads its arguments
// straight off the Lua stack (bytes stay bytes) and pushes its results the same way.
import { decorateFunction, LuaRawResult } from 'wasmoon';
import type { LuaEngine, LuaThread } from 'wasmoon';
import type { LuaStack, ReadOptions } from './lua-stack.js';

/** The arguments of one native call, 1-based like Lua's. */
export class NativeCall {
  constructor(
    private readonly stack: LuaStack,
    readonly L: number,
    readonly argc: number,
  ) {}

  bytes(index: number): Buffer | null {
    return index <= this.argc ? this.stack.bytesAt(this.L, index) : null;
  }

  string(index: number): string | null {
    return index <= this.argc ? this.stack.stringAt(this.L, index) : null;
  }

  boolean(index: number): boolean {
    return index <= this.argc && this.stack.booleanAt(this.L, index);
  }

  number(index: number): number | null {
    return index <= this.argc ? this.stack.numberAt(this.L, index) : null;
  }

  /** luaL_typename of argument `index`, 'no value' past the last. */
  typeName(index: number): string {
    return index <= this.argc ? this.stack.typeNameAt(this.L, index) : 'no value';
  }

  value(index: number, path: string, options?: ReadOptions): unknown {
    return index <= this.argc ? this.stack.readValue(this.L, index, path, options) : null;
  }
}

/** Thrown by a native to raise a Lua error with exactly this message (as luaL_error from C would). */
export class NativeError extends Error {}

/** What a native that pushed its results onto the stack itself returns. */
export class Pushed {
  constructor(readonly count: number) {}
}

/**
 * Returns the values to push (an array, pushed in order), a promise Lua can `:await()`, or
 * `Pushed` when it left its results on the stack itself.
 */
export type NativeFunction = (call: NativeCall) => unknown[] | Promise<unknown> | Pushed;

/** Sets the global `name` to a table of the given natives. */
export function installNatives(engine: LuaEngine, stack: LuaStack, name: string, natives: Record<string, NativeFunction>): void {
  const table: Record<string, unknown> = {};
  for (const [key, native] of Object.entries(natives)) {
    table[key] = decorateFunction(
      (thread: LuaThread, argc: number) => {
        let result: ReturnType<NativeFunction>;
        try {
          result = native(new NativeCall(stack, thread.address, argc));
        } catch (error) {
          if (!(error instanceof NativeError)) throw error;
          stack.pushString(thread.address, error.message);
          return new LuaRawResult(engine.global.lua.lua_error(thread.address));
        }
        if (result instanceof Pushed) return new LuaRawResult(result.count);
        if (result instanceof Promise) {
          thread.pushValue(result);
          return new LuaRawResult(1);
        }
        for (const value of result) stack.pushValue(thread.address, value);
        return new LuaRawResult(result.length);
      },
      { receiveThread: true, receiveArgsQuantity: true },
    );
  }
  engine.global.set(name, table);
}
