// Which files of the Lua test suite a conformance run covers, and the globals Lua's own harness
// (`all.lua`) sets before running each of them.
import { readdirSync } from 'node:fs';

/** Not test files of their own: the harness, and a file `all.lua` never runs (it allocates gigabytes). */
const NOT_RUN = new Set(['all.lua', 'heavy.lua']);

/**
 * What `all.lua` sets before each file: skip slow and non-portable tests, no messages, no C test
 * library (`T`), no `debug` global, and the suite's own folder first on `package.path`.
 */
export const HARNESS_PRELUDE =
  "_soft, _port, _nomsg, T = true, true, true, nil; debug = nil; package.path = './?.lua;' .. package.path";

/** The suite's test files in `dir`, sorted, or the `only` ones when given. */
export function suiteFiles(dir: string, only: string[] = []): string[] {
  if (only.length > 0) return only;
  return readdirSync(dir)
    .filter((name) => name.endsWith('.lua') && !NOT_RUN.has(name))
    .sort();
}
