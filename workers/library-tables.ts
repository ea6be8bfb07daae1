// Lua's standard library tables as the config finds them (`string`, `table`, `math`…), known by
// identity: a value holding one (`type = string`, unquoted) is named plainly, not by whichever
// of its functions a table walk reaches first.
import type { LuaWasm } from 'wasmoon';
import { LUA_REGISTRYINDEX, LuaType } from './wasmoon.js';

const LIBRARY_NAMES = ['string', 'table', 'math', 'io', 'os', 'utf8', 'coroutine', 'debug', 'package'];

/**
 * The library tables among the globals of state `L`, by address; each is referenced from the
 * registry, so that its address names no other table while the state lives.
 */
export function libraryTables(lua: LuaWasm, L: number): Map<number, string> {
  const tables = new Map<number, string>();
  for (const name of LIBRARY_NAMES) {
    if (lua.lua_getglobal(L, name) !== LuaType.Table) {
      lua.lua_settop(L, -2);
      continue;
    }
    tables.set(lua.lua_topointer(L, -1), name);
    lua.luaL_ref(L, LUA_REGISTRYINDEX);
  }
  return tables;
}

/** Why the library `name` at `path` cannot cross, and what was likely meant. */
export function libraryProblem(path: string, name: string): string {
  const problem = `is Lua's \`${name}\` library (a table)`;
  if (!path.endsWith('.type')) return `${problem}, which cannot cross: write '${name}' if you meant the name`;
  if (name === 'string') return `${problem}, not a type name: write type = 'string'`;
  if (name === 'table') return `${problem}, not a type name: write type = 'object' (or 'array')`;
  return `${problem}, not a type name: quote the type, e.g. type = 'number'`;
}
