// Whole file paths in what leaves the worker. Lua cuts a chunk name longer than LUA_IDSIZE (60,
// compiled into wasmoon) to "..." and its last 56 characters in every message and traceback; the
// worker remembers the paths it loads code from and puts each cut name back whole.

/** luaO_chunkid's budget for `@name`: LUA_IDSIZE bytes with the '@' and the final NUL. */
const LUA_IDSIZE = 60;
const KEPT_TAIL_LENGTH = LUA_IDSIZE - '...'.length - 1;

export class ChunkNames {
  /** Cut form → whole path, for every remembered path long enough to be cut. */
  private readonly cut = new Map<string, string>();
  private pattern: RegExp | null = null;

  /** Remembers a path code is loaded from (a chunk named `@path`). */
  remember(path: string): void {
    if (Buffer.byteLength(path) + 1 <= LUA_IDSIZE) return;
    const tail = Buffer.from(path).subarray(-KEPT_TAIL_LENGTH).toString();
    const shortened = `...${tail}`;
    if (this.cut.has(shortened)) return;
    this.cut.set(shortened, path);
    const alternatives = [...this.cut.keys()].sort((a, b) => b.length - a.length).map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    this.pattern = new RegExp(alternatives.join('|'), 'g');
  }

  /** `text` with every cut chunk name written whole. */
  expand(text: string): string {
    if (this.pattern === null || !text.includes('...')) return text;
    return text.replace(this.pattern, (name) => this.cut.get(name)!);
  }

  /** A copy of `value` with `expand` applied to every string in it (arrays and plain objects). */
  expandAll<T>(value: T): T {
    if (this.pattern === null) return value;
    return this.expandValue(value) as T;
  }

  private expandValue(value: unknown): unknown {
    if (typeof value === 'string') return this.expand(value);
    if (Array.isArray(value)) return value.map((item) => this.expandValue(item));
    if (value !== null && typeof value === 'object' && isPlainObject(value)) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.expandValue(item)]));
    }
    return value;
  }
}

function isPlainObject(value: object): boolean {
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
