// wasmoon, loaded with require(): importing a CommonJS package from ESM makes Node lex its 150 KB
// bundle for export names in every worker (about 13 ms of each worker's start-up).
import { createRequire } from 'node:module';
import type * as Wasmoon from 'wasmoon';

const wasmoon = createRequire(import.meta.url)('wasmoon') as typeof Wasmoon;

export const { LuaFactory, LuaReturn, LUA_REGISTRYINDEX } = wasmoon;
