// Raw access to a Lua stack through wasmoon's C API, so that Lua strings cross as bytes:
// wasmoon's own conversion goes through C strings and stops at the first NUL byte.
import { isUtf8 } from 'node:buffer';
import { libraryProblem } from './library-tables.js';

/** The raw exports of wasmoon's emscripten module that the worker uses (wasmoon does not type them). */
export interface LuaRawApi {
  HEAPU8: Uint8Array;
  HEAPU32: Uint32Array;
  HEAP32: Int32Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _lua_type(L: number, index: number): number;
  _lua_absindex(L: number, index: number): number;
  _lua_gettop(L: number): number;
  _lua_settop(L: number, index: number): void;
  _lua_checkstack(L: number, extra: number): number;
  _lua_tolstring(L: number, index: number, lengthOut: number): number;
  _lua_tonumberx(L: number, index: number, isNumberOut: number): number;
  _lua_tointegerx(L: number, index: number, isNumberOut: number): bigint;
  _lua_isinteger(L: number, index: number): number;
  _lua_toboolean(L: number, index: number): number;
  _lua_topointer(L: number, index: number): number;
  _lua_next(L: number, index: number): number;
  _lua_pushnil(L: number): void;
  _lua_pushboolean(L: number, value: number): void;
  _lua_pushinteger(L: number, value: bigint): void;
  _lua_pushnumber(L: number, value: number): void;
  _lua_pushlstring(L: number, pointer: number, length: number): number;
  _lua_createtable(L: number, arraySize: number, hashSize: number): void;
  _lua_rawset(L: number, index: number): void;
  _lua_rawget(L: number, index: number): number;
  _lua_rawseti(L: number, index: number, n: bigint): void;
  _lua_rawgeti(L: number, index: number, n: bigint): number;
  _lua_rawequal(L: number, index1: number, index2: number): number;
  _lua_sethook(L: number, hook: number, mask: number, count: number): void;
  _lua_setwarnf(L: number, warnf: number, userData: number): void;
  _lua_getfield(L: number, index: number, key: number): number;
  _lua_pushthread(L: number): number;
  _lua_callk(L: number, nargs: number, nresults: number, context: number, continuation: number): void;
  _lua_pcallk(
    L: number,
    nargs: number,
    nresults: number,
    handler: number,
    context: number,
    continuation: number,
  ): number;
  _lua_pushcclosure(L: number, fn: number, upvalues: number): void;
  _lua_resume(L: number, from: number, nargs: number, resultCount: number): number;
  _lua_resetthread(L: number): number;
  _lua_error(L: number): number;
  _lua_pushvalue(L: number, index: number): void;
  _lua_rotate(L: number, index: number, n: number): void;
  _lua_xmove(from: number, to: number, n: number): void;
  _lua_isyieldable(L: number): number;
  _lua_yieldk(L: number, results: number, context: number, continuation: number): number;
  _lua_tothread(L: number, index: number): number;
  _lua_setfield(L: number, index: number, key: number): void;
  _lua_setmetatable(L: number, index: number): number;
  _lua_newuserdatauv(L: number, size: number, userValues: number): number;
  _lua_setallocf(L: number, allocator: number, userData: number): void;
  _luaL_getsubtable(L: number, index: number, key: number): number;
  _luaL_checklstring(L: number, index: number, lengthOut: number): number;
  _luaL_checktype(L: number, index: number, type: number): void;
  _luaL_optinteger(L: number, index: number, fallback: bigint): bigint;
  _luaL_tolstring(L: number, index: number, lengthOut: number): number;
  _lua_getstack(L: number, level: number, ar: number): number;
  _lua_getinfo(L: number, what: number, ar: number): number;
  _lua_getlocal(L: number, ar: number, n: number): number;
  _lua_setlocal(L: number, ar: number, n: number): number;
  _lua_pushstring(L: number, text: number): number;
  _luaL_checkinteger(L: number, arg: number): bigint;
  _luaL_checkany(L: number, arg: number): void;
  _luaL_argerror(L: number, arg: number, message: number): number;
  _realloc(pointer: number, size: number): number;
  addFunction(fn: (...args: number[]) => number | void, signature: string): number;
}

export const LUA_TNIL = 0;
export const LUA_TBOOLEAN = 1;
export const LUA_TNUMBER = 3;
export const LUA_TSTRING = 4;
export const LUA_TTABLE = 5;
export const LUA_TFUNCTION = 6;
export const LUA_TTHREAD = 8;

/** Deepest table nesting converted in either direction. */
export const MAX_VALUE_DEPTH = 200;

export const LUA_TYPE_NAMES = 'nil boolean userdata number string table function userdata thread'.split(' ');

/** A value that cannot cross (a function, a cycle…); `path` names where it sits, e.g. `state.items[3]`. */
export class LuaConversionError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path} ${problem}`);
  }
}

/** One readValue in progress: its budget, and the tables open on the path to the value being read. */
interface ValueRead {
  budget: ReadBudget | undefined;
  open: Set<number>;
}

/** Bytes a value read from Lua costs beyond its strings' bytes (its JavaScript form is bigger). */
export const VALUE_OVERHEAD_BYTES = 8;

/** A limit on what reads from Lua may cost: a string its bytes plus VALUE_OVERHEAD_BYTES, any other value the overhead. */
export class ReadBudget {
  private spent = 0;

  constructor(
    readonly limitBytes: number,
    /** Names what is limited in the refusal: `${what} too large (more than …)`. */
    readonly what: string,
    /** A budget this one is part of: what is spent here is spent there too. */
    private readonly whole?: ReadBudget,
  ) {}

  /** Spends `bytes`, or throws a LuaConversionError naming the limit (and spends nothing). */
  spend(bytes: number): void {
    if (this.spent + bytes > this.limitBytes)
      throw new LuaConversionError(this.what, `too large (more than ${describeBytes(this.limitBytes)} encoded)`);
    this.whole?.spend(bytes);
    this.spent += bytes;
  }
}

/** `16 MiB`, `64 KiB`, or a byte count. */
export function describeBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes.toLocaleString('en-US')} bytes`;
}

/** The path of `parent[key]` as a Lua reader would write it: `state.items[3]`, `state["a b"]`. */
export function luaKeyPath(parent: string, key: string | number | boolean): string {
  if (typeof key !== 'string') return `${parent}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

/** Decodes Lua bytes as UTF-8 text; bytes that are not valid UTF-8 are written as `\xNN`, NUL bytes are kept. */
export function decodeLuaText(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(buffer)) return buffer.toString('utf8');
  // Two forward passes, linear in the bytes: count the bytes that begin no valid sequence, then
  // copy the bytes with each of those replaced by its four-character escape, and decode once.
  let invalid = 0;
  forEachInvalidByte(buffer, () => invalid++);
  const escaped = Buffer.allocUnsafe(buffer.length + 3 * invalid);
  let from = 0;
  let to = 0;
  forEachInvalidByte(buffer, (at) => {
    if (at > from) to += buffer.copy(escaped, to, from, at);
    const byte = buffer[at]!;
    escaped[to++] = BACKSLASH;
    escaped[to++] = LOWER_X;
    escaped[to++] = HEX_DIGITS[byte >> 4]!;
    escaped[to++] = HEX_DIGITS[byte & 15]!;
    from = at + 1;
  });
  buffer.copy(escaped, to, from);
  return escaped.toString('utf8');
}

/** Calls `visit` with the position of each byte that begins no valid UTF-8 sequence, in order. */
function forEachInvalidByte(buffer: Buffer, visit: (at: number) => void): void {
  for (let i = 0; i < buffer.length;) {
    const length = sequenceAt(buffer, i);
    if (length > 0) {
      i += length;
    } else {
      visit(i);
      i++;
    }
  }
}

const BACKSLASH = 0x5c;
const LOWER_X = 0x78;
/** The ASCII codes of `0123456789abcdef`. */
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * The length of the well-formed UTF-8 sequence starting at `at` (Unicode's table 3-7: no overlong
 * forms, no surrogates, nothing past U+10FFFF), 0 if none does.
 */
function sequenceAt(buffer: Buffer, at: number): number {
  const lead = buffer[at]!;
  if (lead < 0x80) return 1;
  if (lead < 0xc2 || lead > 0xf4) return 0;
  const length = lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
  if (at + length > buffer.length) return 0;
  const second = buffer[at + 1]!;
  if (second < secondByteLow(lead) || second > secondByteHigh(lead)) return 0;
  for (let n = 2; n < length; n++) if ((buffer[at + n]! & 0xc0) !== 0x80) return 0;
  return length;
}

/** The lowest second byte after `lead`: higher after E0 and F0, which would otherwise begin overlong forms. */
function secondByteLow(lead: number): number {
  return lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
}

/** The highest second byte after `lead`: lower after ED (surrogates) and F4 (past U+10FFFF). */
function secondByteHigh(lead: number): number {
  return lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
}

/** Reads and writes values on the stack of a Lua state `L` (a thread's address). */
export class LuaStack {
  private readonly lengthSlot: number;
  /** A wasm-heap buffer reused for every string pushed, grown on demand. */
  private scratch = 0;
  private scratchSize = 0;
  /** Lua's library tables by address (library-tables.ts): a read that meets one names it. */
  libraries: ReadonlyMap<number, string> = new Map();

  constructor(private readonly module: LuaRawApi) {
    this.lengthSlot = module._malloc(8);
  }

  private scratchOf(size: number): number {
    if (size > this.scratchSize) {
      if (this.scratch) this.module._free(this.scratch);
      this.scratchSize = Math.max(size, 256, this.scratchSize * 2);
      this.scratch = this.module._malloc(this.scratchSize);
      if (this.scratch === 0) throw new RangeError(`cannot allocate ${size} bytes in the wasm heap`);
    }
    return this.scratch;
  }

  typeAt(L: number, index: number): number {
    return this.module._lua_type(L, index);
  }

  typeNameAt(L: number, index: number): string {
    return LUA_TYPE_NAMES[this.typeAt(L, index)] ?? 'no value';
  }

  /** The bytes of the string (or number) at `index`, or null for any other type. */
  bytesAt(L: number, index: number): Buffer | null {
    const type = this.typeAt(L, index);
    return type === LUA_TSTRING || type === LUA_TNUMBER ? this.copyAt(L, index) : null;
  }

  /** A copy of the bytes of the string (or number) at `index`; the caller has checked its type. */
  private copyAt(L: number, index: number): Buffer {
    const pointer = this.module._lua_tolstring(L, index, this.lengthSlot);
    return Buffer.from(this.module.HEAPU8.subarray(pointer, pointer + this.module.HEAPU32[this.lengthSlot >> 2]!));
  }

  /** The NUL-terminated C string at `pointer` in the wasm heap, as decodeLuaText reads it. */
  cStringAt(pointer: number): string {
    const heap = this.module.HEAPU8;
    return decodeLuaText(heap.subarray(pointer, heap.indexOf(0, pointer)));
  }

  /** The length in bytes of the string at `index` (0 for any other type), without copying it. */
  byteLengthAt(L: number, index: number): number {
    if (this.typeAt(L, index) !== LUA_TSTRING) return 0;
    this.module._lua_tolstring(L, index, this.lengthSlot);
    return this.module.HEAPU32[this.lengthSlot >> 2]!;
  }

  stringAt(L: number, index: number): string | null {
    const bytes = this.bytesAt(L, index);
    return bytes === null ? null : decodeLuaText(bytes);
  }

  numberAt(L: number, index: number): number | null {
    if (this.typeAt(L, index) !== LUA_TNUMBER) return null;
    return this.module._lua_tonumberx(L, index, 0);
  }

  booleanAt(L: number, index: number): boolean {
    return this.module._lua_toboolean(L, index) !== 0;
  }

  pushBytes(L: number, bytes: Uint8Array): void {
    const pointer = this.scratchOf(bytes.length);
    this.module.HEAPU8.set(bytes, pointer);
    this.module._lua_pushlstring(L, pointer, bytes.length);
  }

  pushString(L: number, text: string): void {
    this.pushBytes(L, Buffer.from(text, 'utf8'));
  }

  /** Pushes a JSON-like value: objects and arrays become tables (arrays 1-based), null becomes nil. */
  pushValue(L: number, value: unknown, depth = 0): void {
    if (depth > MAX_VALUE_DEPTH)
      throw new LuaConversionError('value', `is nested deeper than ${MAX_VALUE_DEPTH} levels`);
    if (value === null || value === undefined) return this.module._lua_pushnil(L);
    switch (typeof value) {
      case 'string':
        return this.pushString(L, value);
      case 'boolean':
        return this.module._lua_pushboolean(L, value ? 1 : 0);
      case 'number':
      case 'bigint': {
        const number = Number(value);
        if (Number.isSafeInteger(number)) return this.module._lua_pushinteger(L, BigInt(number));
        return this.module._lua_pushnumber(L, number);
      }
    }
    if (value instanceof Uint8Array) return this.pushBytes(L, value);
    if (this.module._lua_checkstack(L, 4) === 0) throw new LuaConversionError('value', 'does not fit on the Lua stack');
    if (Array.isArray(value)) {
      this.module._lua_createtable(L, value.length, 0);
      value.forEach((item, i) => {
        this.pushValue(L, item, depth + 1);
        this.module._lua_rawseti(L, -2, BigInt(i + 1));
      });
      return;
    }
    const entries = value instanceof Map ? [...value] : Object.entries(value as Record<string, unknown>);
    this.module._lua_createtable(L, 0, entries.length);
    for (const [key, item] of entries) {
      this.pushValue(L, key, depth + 1);
      this.pushValue(L, item, depth + 1);
      this.module._lua_rawset(L, -3);
    }
  }

  /**
   * The value at `index` as plain data: tables with keys 1..n (and empty ones) become arrays, others
   * objects; what cannot cross throws a LuaConversionError naming its path. `budget` bounds the cost.
   */
  readValue(L: number, index: number, path: string, budget?: ReadBudget): unknown {
    return this.readAt(L, this.module._lua_absindex(L, index), path, { budget, open: new Set() }, 0);
  }

  private readAt(L: number, index: number, path: string, read: ValueRead, depth: number): unknown {
    const type = this.typeAt(L, index);
    read.budget?.spend(VALUE_OVERHEAD_BYTES + (type === LUA_TSTRING ? this.byteLengthAt(L, index) : 0));
    switch (type) {
      case LUA_TNIL:
        return null;
      case LUA_TBOOLEAN:
        return this.booleanAt(L, index);
      case LUA_TNUMBER:
        return this.module._lua_isinteger(L, index)
          ? Number(this.module._lua_tointegerx(L, index, 0))
          : this.module._lua_tonumberx(L, index, 0);
      case LUA_TSTRING:
        return decodeLuaText(this.copyAt(L, index));
      case LUA_TTABLE:
        return this.readTable(L, index, path, read, depth);
      default:
        throw new LuaConversionError(
          path,
          `is a ${this.typeNameAt(L, index)}: only strings, numbers, booleans and tables can cross`,
        );
    }
  }

  private readTable(L: number, index: number, path: string, read: ValueRead, depth: number): unknown {
    const { open } = read;
    if (depth >= MAX_VALUE_DEPTH) throw new LuaConversionError(path, `is nested deeper than ${MAX_VALUE_DEPTH} levels`);
    const identity = this.module._lua_topointer(L, index);
    const library = this.libraries.get(identity);
    if (library !== undefined) throw new LuaConversionError(path, libraryProblem(path, library));
    if (open.has(identity)) throw new LuaConversionError(path, 'refers back to a table that contains it (a cycle)');
    if (this.module._lua_checkstack(L, 4) === 0) throw new LuaConversionError(path, 'does not fit on the Lua stack');
    open.add(identity);
    const entries: [string | number, unknown][] = [];
    try {
      this.module._lua_pushnil(L);
      while (this.module._lua_next(L, index) !== 0) {
        // A key is measured by its bytes before it is decoded, as a value is.
        read.budget?.spend(VALUE_OVERHEAD_BYTES + this.byteLengthAt(L, -2));
        const key = this.readKey(L, path);
        entries.push([key, this.readAt(L, this.module._lua_gettop(L), luaKeyPath(path, key), read, depth + 1)]);
        this.module._lua_settop(L, -2);
      }
    } catch (error) {
      this.module._lua_settop(L, index);
      throw error;
    } finally {
      open.delete(identity);
    }
    return tableFromEntries(entries);
  }

  private readKey(L: number, path: string): string | number {
    const type = this.typeAt(L, -2);
    if (type === LUA_TSTRING) return decodeLuaText(this.copyAt(L, -2));
    if (type === LUA_TNUMBER && this.module._lua_isinteger(L, -2)) return Number(this.module._lua_tointegerx(L, -2, 0));
    // readTable puts the stack back.
    throw new LuaConversionError(
      path,
      `has a key of type ${LUA_TYPE_NAMES[type] ?? 'unknown'}: only string and integer keys can cross`,
    );
  }
}

function tableFromEntries(entries: [string | number, unknown][]): unknown {
  const isSequence = entries.every(([key]) => typeof key === 'number' && key >= 1 && key <= entries.length);
  if (isSequence) {
    const array: unknown[] = new Array<unknown>(entries.length);
    for (const [key, value] of entries) array[(key as number) - 1] = value;
    return array;
  }
  const object: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of entries) object[String(key)] = value;
  return object;
}
