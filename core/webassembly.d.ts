// The parts of the WebAssembly JavaScript API moonpool uses. TypeScript declares them only in the
// DOM library, which a Node project does not load; this merges with @types/emscripten's namespace.
declare namespace WebAssembly {
  interface Instance {
    readonly exports: Record<string, unknown>;
  }
  type Imports = Record<string, Record<string, unknown>>;
  interface InstantiatedSource {
    module: Module;
    instance: Instance;
  }
  const Module: { prototype: Module; new (bytes: ArrayBufferView | ArrayBuffer): Module };
  function compile(bytes: ArrayBufferView | ArrayBuffer): Promise<Module>;
  function instantiate(bytes: ArrayBufferView | ArrayBuffer, imports?: Imports): Promise<InstantiatedSource>;
  function instantiate(module: Module, imports?: Imports): Promise<Instance>;
}
