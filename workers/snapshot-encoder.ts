// Encodes a Lua value straight from the stack to msgpack, measuring while it writes, so a state past
// SNAPSHOT_LIMIT_BYTES (a shared sub-table counts each time it is reached) is refused before it is
// built. Keys keep their Lua type, so `render` gets the same table back.
import { isUtf8 } from 'node:buffer';
import { writeHeader } from '../shared/msgpack.js';
import {
  decodeLuaText,
  describeBytes,
  LUA_TBOOLEAN,
  LUA_TNUMBER,
  LUA_TSTRING,
  LUA_TTABLE,
  LUA_TYPE_NAMES,
  LuaConversionError,
  MAX_VALUE_DEPTH,
  luaKeyPath,
  type LuaRawApi,
} from './lua-stack.js';

/** A key on the path to the value being written; a string key by the range its bytes take in the buffer. */
type PathKey = number | boolean | [number, number];

/** The largest encoded state `ctx:show` accepts. */
export const SNAPSHOT_LIMIT_BYTES = 16 * 1024 * 1024;

const INITIAL_BYTES = 4096;
const HEADER = Buffer.alloc(5);

export class SnapshotEncoder {
  private buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  private length = 0;
  private readonly keys: PathKey[] = [];
  private readonly open = new Set<number>();
  private readonly lengthSlot: number;

  constructor(private readonly raw: LuaRawApi) {
    this.lengthSlot = raw._malloc(8);
  }

  /** The msgpack encoding of the state at `index` of thread `L`; a LuaConversionError names what cannot cross. */
  encode(L: number, index: number): Uint8Array {
    this.length = 0;
    this.keys.length = 0;
    this.open.clear();
    try {
      this.write(L, this.raw._lua_absindex(L, index), 0);
      return new Uint8Array(this.buffer.subarray(0, this.length));
    } finally {
      // A refused state may have grown the buffer to the limit: give that memory back.
      if (this.buffer.length > INITIAL_BYTES * 16) this.buffer = Buffer.allocUnsafe(INITIAL_BYTES);
    }
  }

  private write(L: number, index: number, depth: number): void {
    const type = this.raw._lua_type(L, index);
    if (type === LUA_TTABLE) return this.table(L, index, depth);
    if (this.scalar(L, index, type) === undefined)
      throw this.refusal(
        `is a ${LUA_TYPE_NAMES[type] ?? 'value of unknown type'}: only strings, numbers, booleans and tables can cross`,
      );
  }

  /** Writes the string, number or boolean at `index`; returns it as paths in messages name it (undefined: other types). */
  private scalar(L: number, index: number, type: number): PathKey | undefined {
    if (type === LUA_TSTRING) return this.string(L, index);
    if (type === LUA_TNUMBER) return this.number(L, index);
    if (type !== LUA_TBOOLEAN) return undefined;
    const value = this.raw._lua_toboolean(L, index) !== 0;
    this.reserve(1);
    this.buffer[this.length++] = value ? 0xc3 : 0xc2;
    return value;
  }

  private table(L: number, index: number, depth: number): void {
    if (depth >= MAX_VALUE_DEPTH) throw this.refusal(`is nested deeper than ${MAX_VALUE_DEPTH} levels`);
    const identity = this.raw._lua_topointer(L, index);
    if (this.open.has(identity)) throw this.refusal('refers back to a table that contains it (a cycle)');
    if (this.raw._lua_checkstack(L, 4) === 0) throw this.refusal('does not fit on the Lua stack');
    this.open.add(identity);
    const top = this.raw._lua_gettop(L);
    try {
      const count = this.sequenceLength(L, index);
      if (count.sequence) this.arrayOf(L, index, count.entries, depth);
      else this.mapOf(L, index, count.entries, depth);
    } finally {
      this.raw._lua_settop(L, top);
      this.open.delete(identity);
    }
  }

  /** How many entries the table has, and whether its keys are exactly 1..n (distinct positive integers whose largest is n). */
  private sequenceLength(L: number, index: number): { entries: number; sequence: boolean } {
    let entries = 0;
    let positive = true;
    let largest = 0n;
    this.raw._lua_pushnil(L);
    while (this.raw._lua_next(L, index) !== 0) {
      entries++;
      if (positive && this.raw._lua_isinteger(L, -2) !== 0) {
        const key = this.raw._lua_tointegerx(L, -2, 0);
        if (key < 1n) positive = false;
        else if (key > largest) largest = key;
      } else positive = false;
      this.raw._lua_settop(L, -2);
    }
    return { entries, sequence: positive && largest === BigInt(entries) };
  }

  private arrayOf(L: number, index: number, count: number, depth: number): void {
    this.header('array', count);
    for (let i = 1; i <= count; i++) {
      this.raw._lua_rawgeti(L, index, BigInt(i));
      this.keys.push(i);
      this.write(L, this.raw._lua_gettop(L), depth + 1);
      this.keys.pop();
      this.raw._lua_settop(L, -2);
    }
  }

  private mapOf(L: number, index: number, count: number, depth: number): void {
    this.header('map', count);
    this.raw._lua_pushnil(L);
    while (this.raw._lua_next(L, index) !== 0) {
      const top = this.raw._lua_gettop(L);
      const key = this.key(L, top - 1);
      this.keys.push(key);
      this.write(L, top, depth + 1);
      this.keys.pop();
      this.raw._lua_settop(L, -2);
    }
  }

  /** Writes the key at `index`; returns it as paths in messages name it. */
  private key(L: number, index: number): PathKey {
    const type = this.raw._lua_type(L, index);
    const key = this.scalar(L, index, type);
    if (key !== undefined) return key;
    throw this.refusal(
      `has a key of type ${LUA_TYPE_NAMES[type] ?? 'unknown'}: only string, number and boolean keys can cross`,
    );
  }

  /** Writes the string at `index`; returns where its bytes are in the buffer. */
  private string(L: number, index: number): [number, number] {
    const pointer = this.raw._lua_tolstring(L, index, this.lengthSlot);
    const length = this.raw.HEAPU32[this.lengthSlot >> 2]!;
    const bytes = this.raw.HEAPU8.subarray(pointer, pointer + length);
    // Bytes that are not UTF-8 travel as msgpack `bin`; both come back as the same Lua string.
    this.header(isUtf8(bytes) ? 'string' : 'binary', length);
    this.reserve(length);
    this.buffer.set(bytes, this.length);
    this.length += length;
    return [this.length - length, this.length];
  }

  /** Writes the number at `index`; returns its value. */
  private number(L: number, index: number): number {
    if (this.raw._lua_isinteger(L, index) === 0) {
      const float = this.raw._lua_tonumberx(L, index, 0);
      this.reserve(9);
      this.buffer[this.length] = 0xcb;
      this.buffer.writeDoubleBE(float, this.length + 1);
      this.length += 9;
      return float;
    }
    const value = this.raw._lua_tointegerx(L, index, 0);
    this.reserve(9);
    const at = this.length;
    if (value >= -32n && value < 128n) {
      // A positive or negative fixint: the value's own byte.
      this.buffer[at] = Number(value) & 0xff;
      this.length += 1;
    } else if (value >= -(2n ** 31n) && value < 2n ** 31n) {
      this.buffer[at] = 0xd2;
      this.buffer.writeInt32BE(Number(value), at + 1);
      this.length += 5;
    } else {
      this.buffer[at] = 0xd3;
      this.buffer.writeBigInt64BE(value, at + 1);
      this.length += 9;
    }
    return Number(value);
  }

  /** Writes a header through a scratch buffer, so that the limit counts only the bytes it takes. */
  private header(kind: 'array' | 'map' | 'string' | 'binary', size: number): void {
    const bytes = writeHeader(HEADER, 0, kind, size);
    this.reserve(bytes);
    for (let i = 0; i < bytes; i++) this.buffer[this.length++] = HEADER[i]!;
  }

  /** Makes room for `bytes` more, refusing past the limit. */
  private reserve(bytes: number): void {
    const needed = this.length + bytes;
    if (needed > SNAPSHOT_LIMIT_BYTES)
      throw new LuaConversionError('state', `too large (more than ${describeBytes(SNAPSHOT_LIMIT_BYTES)} encoded)`);
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.min(SNAPSHOT_LIMIT_BYTES, Math.max(needed, this.buffer.length * 2)));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  private refusal(problem: string): LuaConversionError {
    const path = this.keys.reduce<string>(
      (parent, key) =>
        luaKeyPath(parent, Array.isArray(key) ? decodeLuaText(this.buffer.subarray(key[0], key[1])) : key),
      'state',
    );
    return new LuaConversionError(path, problem);
  }
}
