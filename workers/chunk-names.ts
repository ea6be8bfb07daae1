// Whole file paths in what leaves the worker: Lua cuts a chunk name past LUA_IDSIZE (60) to "..."
// and its last 56 bytes; the worker remembers the paths it loads code from and puts them back.

/** luaO_chunkid's budget for `@name`: LUA_IDSIZE bytes with the '@' and the final NUL. */
const LUA_IDSIZE = 60;
const KEPT_TAIL_BYTES = LUA_IDSIZE - '...'.length - 1;
/** Paths remembered per worker; past this, cut names stay cut (a tool loading ever new files). */
export const MAX_REMEMBERED_PATHS = 10_000;
/** Their bytes in all, likewise: a worker keeps them for its life, outside the Lua heap's cap. */
export const MAX_REMEMBERED_BYTES = 1024 * 1024;

export class ChunkNames {
  /** Kept tail (what follows "...") → whole path. */
  private readonly paths = new Map<string, string>();
  /** The lengths (in UTF-16 units) the tails have: 56 unless a path holds non-ASCII characters. */
  private readonly tailLengths = new Set<number>();
  /** The bytes of the paths in `paths`. */
  private bytes = 0;

  /** Remembers a path code was loaded from (a chunk named `@path`). */
  remember(path: string): void {
    const bytes = Buffer.from(path);
    if (bytes.length + 1 <= LUA_IDSIZE || this.paths.size >= MAX_REMEMBERED_PATHS) return;
    if (this.bytes + bytes.length > MAX_REMEMBERED_BYTES) return;
    const tail = bytes.subarray(-KEPT_TAIL_BYTES).toString();
    if (this.paths.has(tail)) return;
    this.paths.set(tail, path);
    this.tailLengths.add(tail.length);
    this.bytes += bytes.length;
  }

  /** `text` with every cut chunk name written whole. */
  expand(text: string): string {
    if (this.paths.size === 0) return text;
    let result = '';
    let copied = 0;
    for (let at = text.indexOf('...'); at >= 0; at = text.indexOf('...', at + 1)) {
      const start = at + 3;
      const tailLength = [...this.tailLengths].find((length) => this.paths.has(text.slice(start, start + length)));
      if (tailLength === undefined) continue;
      result += text.slice(copied, at) + this.paths.get(text.slice(start, start + tailLength))!;
      copied = start + tailLength;
      at = copied - 1;
    }
    return copied === 0 ? text : result + text.slice(copied);
  }

  /** A copy of `value` with `expand` applied to every string in it (arrays and plain objects). */
  expandAll<T>(value: T): T {
    if (this.paths.size === 0) return value;
    const expand = (value: unknown): unknown => {
      if (typeof value === 'string') return this.expand(value);
      if (Array.isArray(value)) return value.map(expand);
      const prototype: unknown = value !== null && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
      if (prototype !== Object.prototype && prototype !== null) return value;
      return Object.fromEntries(Object.entries(value as object).map(([key, item]) => [key, expand(item)]));
    };
    return expand(value) as T;
  }
}
