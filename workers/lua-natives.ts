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

  value(index: number, path: string, options?: ReadOptions): unknown {
    return index <= this.argc ? this.stack.readValue(this.L, index, path, options) : null;
  }
}

/** Returns the values to push (an array, pushed in order) or a promise Lua can `:await()`. */
export type NativeFunction = (call: NativeCall) => unknown[] | Promise<unknown>;

/** Sets the global `name` to a table of the given natives. */
export function installNatives(engine: LuaEngine, stack: LuaStack, name: string, natives: Record<string, NativeFunction>): void {
  const table: Record<string, unknown> = {};
  for (const [key, native] of Object.entries(natives)) {
    table[key] = decorateFunction(
      (thread: LuaThread, argc: number) => {
        const result = native(new NativeCall(stack, thread.address, argc));
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
