// Creates a wasmoon engine from a module the host compiled once (see core/lua-wasm.ts). wasmoon
// only takes a file to instantiate, so while the engine is created WebAssembly.instantiate is
// given the compiled module instead of the file's bytes; everything else is unchanged.

export async function withCompiledModule<T>(
  module: WebAssembly.Module | undefined,
  create: () => Promise<T>,
  /** Told the instance made from the compiled module. */
  onInstance?: (instance: WebAssembly.Instance) => void,
): Promise<T> {
  if (!module) return create();
  const original = WebAssembly.instantiate.bind(WebAssembly);
  const instantiate = async (source: unknown, imports?: WebAssembly.Imports): Promise<unknown> => {
    if (source instanceof WebAssembly.Module) return original(source, imports);
    const instance = await original(module, imports);
    onInstance?.(instance);
    return { module, instance };
  };
  WebAssembly.instantiate = instantiate as typeof WebAssembly.instantiate;
  try {
    return await create();
  } finally {
    WebAssembly.instantiate = original;
  }
}
