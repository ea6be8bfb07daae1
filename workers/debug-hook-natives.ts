// `debug.sethook` and `debug.gethook` over moonpool's count hook, which owns each thread's hook:
// they keep the hook function where ldblib does (the registry's `_HOOKKEY`), so a tool sees what
// native Lua shows while moonpool's own hook keeps running. And `debug.getlocal`/`setlocal` as
// ldblib's, except that moonpool's own frames and functions have no locals to show: a prelude
// function calling back into the tool (a `__tostring`) would otherwise hand it its records.
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LUA_MASKCOUNT, SOURCE_OFFSET, type CountHook } from './count-hook.js';
import { PRELUDE_CHUNK_NAME } from './prelude-chunks.js';
import { NativeError, Pushed, type NativeCall, type NativeFunction } from './lua-natives.js';
import { LUA_TFUNCTION, LUA_TNIL, LUA_TTHREAD, type LuaRawApi, type LuaStack } from './lua-stack.js';

/** Room for a 32-bit `lua_Debug` (about 110 bytes). */
const LUA_DEBUG_BYTES = 256;

/** ldblib's mask letters: call, return, line. */
const MASK_LETTERS = ['c', 'r', 'l'] as const;

/** ldblib's makemask: 'c', 'r', 'l' in the string, and a count. */
function makeMask(letters: string, count: number): number {
  const mask = MASK_LETTERS.reduce((bits, letter, bit) => (letters.includes(letter) ? bits | (1 << bit) : bits), 0);
  return count > 0 ? mask | LUA_MASKCOUNT : mask;
}

/** ldblib's unmakemask. */
function maskLetters(mask: number): string {
  return MASK_LETTERS.filter((_, bit) => mask & (1 << bit)).join('');
}

export function createDebugHookNatives(
  raw: LuaRawApi,
  stack: LuaStack,
  hook: CountHook,
  cString: (text: string) => number,
): Record<string, NativeFunction> {
  const modeKey = cString('__mode');
  /** The thread an optional first argument names (and how many arguments it took), else L. */
  const threadArgument = (L: number): [number, number] =>
    raw._lua_type(L, 1) === LUA_TTHREAD ? [raw._lua_tothread(L, 1), 1] : [L, 0];
  /** Pushes the hook table, made as ldblib makes it when it is not there yet. */
  const pushHookTable = (L: number): void => {
    if (raw._luaL_getsubtable(L, LUA_REGISTRYINDEX, hook.hookKey) !== 0) return;
    stack.pushString(L, 'k');
    raw._lua_setfield(L, -2, modeKey);
    raw._lua_pushvalue(L, -1);
    raw._lua_setmetatable(L, -2);
  };
  const pushThread = (L: number, thread: number): void => {
    raw._lua_pushthread(thread);
    if (thread !== L) raw._lua_xmove(thread, L, 1);
  };
  const frames = createLocalNatives(raw, stack, threadArgument, cString);
  return {
    ...frames,
    sethook: (call) => {
      const { L } = call;
      const [thread, arg] = threadArgument(L);
      let mask = 0;
      let count = 0;
      if (raw._lua_type(L, arg + 1) <= LUA_TNIL) {
        raw._lua_settop(L, arg + 1);
      } else {
        // The checks raise as ldblib's do (the same messages, through the auxiliary library).
        const letters = raw._luaL_checklstring(L, arg + 2, 0);
        raw._luaL_checktype(L, arg + 1, LUA_TFUNCTION);
        count = Number(raw._luaL_optinteger(L, arg + 3, 0n));
        mask = makeMask(stack.cStringAt(letters), count);
      }
      pushHookTable(L);
      pushThread(L, thread);
      raw._lua_pushvalue(L, arg + 1);
      raw._lua_rawset(L, -3);
      raw._lua_settop(L, -2);
      hook.setToolHook(thread, mask, count);
      return [];
    },
    gethook: (call) => {
      const { L } = call;
      const [thread] = threadArgument(L);
      const tool = hook.toolHooks.get(thread);
      if (!tool) return [null];
      pushHookTable(L);
      pushThread(L, thread);
      raw._lua_rawget(L, -2);
      raw._lua_rotate(L, -2, 1);
      raw._lua_settop(L, -2);
      stack.pushString(L, maskLetters(tool.mask));
      raw._lua_pushinteger(L, BigInt(tool.mask & LUA_MASKCOUNT ? tool.count : 0));
      return new Pushed(3);
    },
  };
}

/** `debug.getlocal` and `debug.setlocal`: ldblib's, with no locals in a frame or function of the prelude's. */
function createLocalNatives(
  raw: LuaRawApi,
  stack: LuaStack,
  threadArgument: (L: number) => [number, number],
  cString: (text: string) => number,
): Record<string, NativeFunction> {
  const ar = raw._malloc(LUA_DEBUG_BYTES);
  const sourceOnly = cString('S');
  const popFunctionSource = cString('>S');
  const outOfRange = cString('level out of range');
  /** Whether `ar` (filled by lua_getinfo) is the prelude's. */
  const isPrelude = (): boolean => stack.cStringAt(raw.HEAPU32[(ar + SOURCE_OFFSET) >> 2]!) === PRELUDE_CHUNK_NAME;
  /** luaL_checkinteger, cast to a C int as ldblib casts it. */
  const checkInt = (L: number, arg: number): number => Number(BigInt.asIntN(32, raw._luaL_checkinteger(L, arg)));
  /** Fills `ar` with the frame `level` of `thread`; raises as ldblib does past the last. */
  const frameAt = (L: number, thread: number, level: number, arg: number): void => {
    if (raw._lua_getstack(thread, level, ar) === 0) raw._luaL_argerror(L, arg, outOfRange);
  };
  const checkStack = (L: number, thread: number): void => {
    if (thread !== L && raw._lua_checkstack(thread, 1) === 0) throw new NativeError('stack overflow');
  };
  const pushNil = (L: number): Pushed => (raw._lua_pushnil(L), new Pushed(1));

  /** The parameter name of a Lua function, for `debug.getlocal(f, n)`. */
  const parameterName = (L: number, arg: number, n: number): Pushed => {
    raw._lua_pushvalue(L, arg);
    raw._lua_getinfo(L, popFunctionSource, ar);
    if (isPrelude()) return pushNil(L);
    raw._lua_pushvalue(L, arg);
    raw._lua_pushstring(L, raw._lua_getlocal(L, 0, n));
    return new Pushed(1);
  };

  return {
    getlocal: ({ L }: NativeCall) => {
      const [thread, arg] = threadArgument(L);
      const n = checkInt(L, arg + 2);
      if (raw._lua_type(L, arg + 1) === LUA_TFUNCTION) return parameterName(L, arg + 1, n);
      frameAt(L, thread, checkInt(L, arg + 1), arg + 1);
      raw._lua_getinfo(thread, sourceOnly, ar);
      if (isPrelude()) return pushNil(L);
      checkStack(L, thread);
      const name = raw._lua_getlocal(thread, ar, n);
      if (name === 0) return pushNil(L);
      raw._lua_xmove(thread, L, 1);
      raw._lua_pushstring(L, name);
      raw._lua_rotate(L, -2, 1);
      return new Pushed(2);
    },
    setlocal: ({ L }: NativeCall) => {
      const [thread, arg] = threadArgument(L);
      const level = checkInt(L, arg + 1);
      const n = checkInt(L, arg + 2);
      frameAt(L, thread, level, arg + 1);
      raw._luaL_checkany(L, arg + 3);
      raw._lua_settop(L, arg + 3);
      raw._lua_getinfo(thread, sourceOnly, ar);
      if (isPrelude()) return pushNil(L);
      checkStack(L, thread);
      raw._lua_xmove(L, thread, 1);
      const name = raw._lua_setlocal(thread, ar, n);
      if (name === 0) raw._lua_settop(thread, -2);
      raw._lua_pushstring(L, name);
      return new Pushed(1);
    },
  };
}
