// wasmoon's Lua functions (`module._lua_settop`, `_malloc` …) are emscripten's assertion wrappers:
// every call checks that the runtime is up and looks the export up again. The worker's own calls —
// a dozen or more per `run`, and one per Lua allocation through the heap cap — go to the wasm
// instance's exports directly; everything else (HEAPU8, addFunction …) is still wasmoon's module.

/** Names whose wrapper is replaced: the Lua API, and the allocator. */
const DIRECT = /^_(lua_|luaL_|malloc$|free$|realloc$)/;

/** `module` with its wrapped functions replaced by the instance's exports (the module itself without them). */
export function withDirectExports<T extends object>(
  module: T,
  exports: WebAssembly.Instance['exports'] | undefined,
): T {
  if (exports === undefined) return module;
  const direct = Object.create(module) as Record<string, unknown>;
  for (const name of Object.keys(module)) {
    const exported = exports[name.slice(1)];
    if (DIRECT.test(name) && typeof exported === 'function') direct[name] = exported;
  }
  return direct as T;
}
