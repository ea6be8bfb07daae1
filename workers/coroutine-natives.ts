// `coroutine.yield`, `coroutine.running` and `coroutine.isyieldable` as natives that make moonpool's
// entry thread look like the main thread, as `run` would be in native Lua: yielding there is the
// VM's own error, `running` says main, `isyieldable` says no. Elsewhere they are Lua's own. Being C
// functions like Lua's, they add nothing to a hook's trace or a traceback.
import { NativeError, Pushed, type NativeFunction } from './lua-natives.js';
import { LUA_TTHREAD, type LuaRawApi } from './lua-stack.js';

/** `entryThread()` is the address of the thread moonpool runs entry points on. */
export function createCoroutineNatives(raw: LuaRawApi, entryThread: () => number): Record<string, NativeFunction> {
  return {
    yield: (call) => {
      if (call.L === entryThread()) throw new NativeError('attempt to yield from outside a coroutine', false);
      // Raises the yield (as luaB_yield does); the coroutine's resume later returns its values here.
      return new Pushed(raw._lua_yieldk(call.L, call.argc, 0, 0));
    },
    running: (call) => {
      const main = raw._lua_pushthread(call.L) !== 0;
      raw._lua_pushboolean(call.L, main || call.L === entryThread() ? 1 : 0);
      return new Pushed(2);
    },
    isyieldable: (call) => {
      const thread = raw._lua_type(call.L, 1) === LUA_TTHREAD ? raw._lua_tothread(call.L, 1) : call.L;
      return [thread !== entryThread() && raw._lua_isyieldable(thread) !== 0];
    },
  };
}
