// The worker's wasmoon engine, loaded with require() (importing the CommonJS bundle from ESM costs
// each worker ~13 ms of lexing), instantiated from the module the host compiled once
// (core/lua-wasm.ts), its Lua functions called as the instance's exports rather than through
// emscripten's checking wrappers.
import { createRequire } from 'node:module';
import type * as Wasmoon from 'wasmoon';

const wasmoon = createRequire(import.meta.url)('wasmoon') as typeof Wasmoon;

export const { LuaReturn, LuaType, LUA_REGISTRYINDEX } = wasmoon;

/** Names whose wrapper is replaced by the export: the Lua API, and the allocator. */
const DIRECT = /^_(lua_|luaL_|malloc$|free$|realloc$)/;

/** A new engine, and wasmoon's module with its Lua functions called directly (`raw`). */
export async function createEngine<Raw>(module: WebAssembly.Module): Promise<{ engine: Wasmoon.LuaEngine; raw: Raw }> {
  let exports: WebAssembly.Instance['exports'] | undefined;
  const original = WebAssembly.instantiate.bind(WebAssembly);
  const instantiate = async (source: unknown, imports?: WebAssembly.Imports): Promise<unknown> => {
    if (source instanceof WebAssembly.Module) return original(source, imports);
    const instance = await original(module, imports);
    exports = instance.exports;
    return { module, instance };
  };
  WebAssembly.instantiate = instantiate as typeof WebAssembly.instantiate;
  let engine: Wasmoon.LuaEngine;
  try {
    engine = await new wasmoon.LuaFactory().createEngine({
      traceAllocations: true,
      enableProxy: false,
      injectObjects: false,
    });
  } finally {
    WebAssembly.instantiate = original;
  }
  const wrapped = engine.global.lua.module as unknown as Record<string, unknown>;
  const raw = Object.create(wrapped) as Record<string, unknown>;
  for (const name of Object.keys(wrapped)) {
    const exported = exports?.[name.slice(1)];
    if (DIRECT.test(name) && typeof exported === 'function') raw[name] = exported;
  }
  return { engine, raw: raw as Raw };
}
