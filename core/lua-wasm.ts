// The Lua VM's WebAssembly module, compiled once per process and handed to every worker: a
// WebAssembly.Module sent to a worker shares its compiled code, so fifty workers do not each
// compile (and optimize, in the background) the same module fifty times.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

let compiled: Promise<WebAssembly.Module> | undefined;

export function compiledLuaModule(): Promise<WebAssembly.Module> {
  compiled ??= readFile(createRequire(import.meta.url).resolve('wasmoon/dist/glue.wasm')).then((bytes) =>
    WebAssembly.compile(bytes),
  );
  return compiled;
}
