// How JavaScript functions are offered to the Lua prelude: as bare C functions, each reading its
// arguments straight off the Lua stack (bytes stay bytes) and pushing its results the same way.
import type { LuaEngine } from 'wasmoon';
import type { LuaStack } from './lua-stack.js';
import { isWasmTrap } from './lua-state-errors.js';

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

  number(index: number): number | null {
    return index <= this.argc ? this.stack.numberAt(this.L, index) : null;
  }

  /** luaL_typename of argument `index`, 'no value' past the last. */
  typeName(index: number): string {
    return index <= this.argc ? this.stack.typeNameAt(this.L, index) : 'no value';
  }

  value(index: number, path: string): unknown {
    return index <= this.argc ? this.stack.readValue(this.L, index, path) : null;
  }
}

/** Thrown by a native to raise a Lua error as luaL_error from C would: the caller's position, then the message. */
export class NativeError extends Error {
  constructor(
    message: string,
    /** Whether the caller's position goes first (false: as the VM's errors from C; 'tool': the tool's own line). */
    readonly withPosition: boolean | 'tool' = true,
  ) {
    super(message);
  }
}

/** What a native that pushed its results onto the stack itself returns. */
export class Pushed {
  constructor(readonly count: number) {}
}

/** Returns the values to push (in order), a promise of them (Lua waits), or `Pushed` for results it pushed itself. */
export type NativeFunction = (call: NativeCall) => unknown[] | Promise<unknown[]> | Pushed;

/**
 * What the natives need of the runtime: `wait` makes the calling thread wait for `values` (see
 * EntryRunner.wait); `trapped` is told of a WebAssembly trap (the state is broken, though the
 * native's Lua error may be caught).
 */
type NativeHost = { wait(L: number, values: Promise<unknown[]>): number; trapped(error: Error): void };

/**
 * Sets the global `name` to a table of the natives, each a bare C function (no upvalues), so to Lua it looks like one
 * of its C libraries': `debug.getinfo` says "C", and `string.dump` and `debug.upvaluejoin` refuse it.
 */
export function installNatives(
  engine: LuaEngine,
  stack: LuaStack,
  name: string,
  natives: Record<string, NativeFunction>,
  host: NativeHost,
): void {
  const lua = engine.global.lua;
  const L = engine.global.address;
  const entries = Object.entries(natives);
  lua.lua_createtable(L, 0, entries.length);
  for (const [key, native] of entries) {
    const pointer = lua.module.addFunction((calledL: number) => callNative(engine, stack, native, host, calledL), 'ii');
    lua.lua_pushcclosure(L, pointer, 0);
    lua.lua_setfield(L, -2, key);
  }
  lua.lua_setglobal(L, name);
}

/** Runs one native for Lua: its results pushed, its failure raised as a Lua error. */
function callNative(engine: LuaEngine, stack: LuaStack, native: NativeFunction, host: NativeHost, L: number): number {
  const lua = engine.global.lua;
  try {
    const result = native(new NativeCall(stack, L, lua.lua_gettop(L)));
    if (result instanceof Pushed) return result.count;
    if (result instanceof Promise) return host.wait(L, result);
    for (const value of result) stack.pushValue(L, value);
    return result.length;
  } catch (error) {
    // emscripten's longjmp (a Lua error raised inside the native) unwinds JavaScript as Infinity.
    if (error === Infinity) throw error;
    if (isWasmTrap(error)) host.trapped(error);
    if (error instanceof NativeError) {
      if (error.withPosition === 'tool') pushToolWhere(engine, stack, L);
      else if (error.withPosition) lua.luaL_where(L, 1);
      stack.pushString(L, error.message);
      if (error.withPosition) lua.lua_concat(L, 2);
    } else {
      engine.global.stateToThread(L).pushValue(error);
    }
    return lua.lua_error(L);
  }
}

/** The deepest frames looked through for the tool's own. */
const MAX_WHERE_LEVELS = 100;

/** Pushes `file:line: ` of the first frame that is neither the prelude's nor a C function's ('' if none). */
function pushToolWhere(engine: LuaEngine, stack: LuaStack, L: number): void {
  const lua = engine.global.lua;
  for (let level = 1; level <= MAX_WHERE_LEVELS; level++) {
    lua.luaL_where(L, level);
    const where = stack.stringAt(L, -1) ?? '';
    if (where !== '' && !where.startsWith('[moonpool]:')) return;
    lua.lua_settop(L, -2);
  }
  stack.pushString(L, '');
}
