// `debug.sethook` and `debug.gethook` over moonpool's count hook, which owns each thread's hook:
// they keep the hook function where ldblib does (the registry's `_HOOKKEY`), so a tool sees what
// native Lua shows while moonpool's own hook keeps running.
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LUA_MASKCOUNT, type CountHook } from './count-hook.js';
import { Pushed, type NativeFunction } from './lua-natives.js';
import { LUA_TFUNCTION, LUA_TNIL, LUA_TTHREAD, type LuaRawApi, type LuaStack } from './lua-stack.js';

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
  return {
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
