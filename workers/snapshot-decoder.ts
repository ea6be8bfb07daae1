// Decodes a snapshot (msgpack) straight onto a Lua stack, so `render` receives the table that was
// shown: integer, float, string and boolean keys as they were, arrays as sequences. Snapshots
// recorded before moonpool encoded them itself (msgpackr's, string keys only) decode the same way.
import { MAX_VALUE_DEPTH, type LuaRawApi, type LuaStack } from './lua-stack.js';

/** A snapshot that is not msgpack moonpool can read (a damaged session log, say). */
export class SnapshotFormatError extends Error {}

const NIL = Symbol('nil');

export class SnapshotDecoder {
  private bytes: Buffer = Buffer.alloc(0);
  private offset = 0;

  constructor(
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
  ) {}

  /** Pushes the value `bytes` encode onto thread `L` (nil for an empty snapshot). */
  push(L: number, bytes: Uint8Array): void {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.offset = 0;
    try {
      if (bytes.length === 0 || this.value(L, 0) === NIL) this.raw._lua_pushnil(L);
      if (this.offset !== this.bytes.length) throw new SnapshotFormatError(`${this.bytes.length - this.offset} bytes follow the value`);
    } finally {
      this.bytes = Buffer.alloc(0);
    }
  }

  /** Pushes one value; returns NIL, pushing nothing, for msgpack nil and extension types. */
  private value(L: number, depth: number): typeof NIL | undefined {
    const code = this.u8();
    if (code <= 0x7f) return this.integer(L, BigInt(code));
    if (code >= 0xe0) return this.integer(L, BigInt(code - 0x100));
    if (code <= 0x8f) return this.map(L, code & 0x0f, depth);
    if (code <= 0x9f) return this.array(L, code & 0x0f, depth);
    if (code <= 0xbf) return this.string(L, code & 0x1f);
    switch (code) {
      case 0xc0:
        return NIL;
      case 0xc2:
      case 0xc3:
        this.raw._lua_pushboolean(L, code & 1);
        return undefined;
      case 0xc4:
      case 0xd9:
        return this.string(L, this.u8());
      case 0xc5:
      case 0xda:
        return this.string(L, this.read(2).readUInt16BE(0));
      case 0xc6:
      case 0xdb:
        return this.string(L, this.read(4).readUInt32BE(0));
      case 0xca:
        this.raw._lua_pushnumber(L, this.read(4).readFloatBE(0));
        return undefined;
      case 0xcb:
        this.raw._lua_pushnumber(L, this.read(8).readDoubleBE(0));
        return undefined;
      case 0xcc:
        return this.integer(L, BigInt(this.u8()));
      case 0xcd:
        return this.integer(L, BigInt(this.read(2).readUInt16BE(0)));
      case 0xce:
        return this.integer(L, BigInt(this.read(4).readUInt32BE(0)));
      case 0xcf:
        return this.integer(L, this.read(8).readBigUInt64BE(0));
      case 0xd0:
        return this.integer(L, BigInt(this.read(1).readInt8(0)));
      case 0xd1:
        return this.integer(L, BigInt(this.read(2).readInt16BE(0)));
      case 0xd2:
        return this.integer(L, BigInt(this.read(4).readInt32BE(0)));
      case 0xd3:
        return this.integer(L, this.read(8).readBigInt64BE(0));
      case 0xdc:
        return this.array(L, this.read(2).readUInt16BE(0), depth);
      case 0xdd:
        return this.array(L, this.read(4).readUInt32BE(0), depth);
      case 0xde:
        return this.map(L, this.read(2).readUInt16BE(0), depth);
      case 0xdf:
        return this.map(L, this.read(4).readUInt32BE(0), depth);
      default:
        return this.extension(code);
    }
  }

  /** Skips an extension value (a JavaScript Date, say): Lua has nothing to make of it. */
  private extension(code: number): typeof NIL {
    const fixed: Record<number, number> = { 0xd4: 1, 0xd5: 2, 0xd6: 4, 0xd7: 8, 0xd8: 16 };
    let length = fixed[code];
    if (length === undefined) {
      if (code === 0xc7) length = this.u8();
      else if (code === 0xc8) length = this.read(2).readUInt16BE(0);
      else if (code === 0xc9) length = this.read(4).readUInt32BE(0);
      else throw new SnapshotFormatError(`byte 0x${code.toString(16)} at offset ${this.offset - 1} is not msgpack`);
    }
    this.read(1 + length);
    return NIL;
  }

  private integer(L: number, value: bigint): undefined {
    if (value > 0x7fffffffffffffffn) this.raw._lua_pushnumber(L, Number(value));
    else this.raw._lua_pushinteger(L, value);
    return undefined;
  }

  private string(L: number, length: number): undefined {
    this.stack.pushBytes(L, this.read(length));
    return undefined;
  }

  private array(L: number, count: number, depth: number): undefined {
    this.enter(L, depth, count);
    this.raw._lua_createtable(L, Math.min(count, this.bytes.length), 0);
    for (let i = 1; i <= count; i++) {
      if (this.value(L, depth + 1) !== NIL) this.raw._lua_rawseti(L, -2, BigInt(i));
    }
    return undefined;
  }

  private map(L: number, count: number, depth: number): undefined {
    this.enter(L, depth, count);
    this.raw._lua_createtable(L, 0, Math.min(count, this.bytes.length));
    for (let i = 0; i < count; i++) {
      const keyPushed = this.value(L, depth + 1) !== NIL;
      const valuePushed = this.value(L, depth + 1) !== NIL;
      // A nil or NaN key, or a nil value, cannot be stored: the entry is left out.
      if (keyPushed && valuePushed && !this.isNaN(L, -2)) this.raw._lua_rawset(L, -3);
      else this.raw._lua_settop(L, -1 - Number(keyPushed) - Number(valuePushed));
    }
    return undefined;
  }

  private isNaN(L: number, index: number): boolean {
    return this.raw._lua_type(L, index) === 3 && this.raw._lua_isinteger(L, index) === 0 && Number.isNaN(this.raw._lua_tonumberx(L, index, 0));
  }

  private enter(L: number, depth: number, count: number): void {
    if (depth >= MAX_VALUE_DEPTH) throw new SnapshotFormatError(`the snapshot is nested deeper than ${MAX_VALUE_DEPTH} levels`);
    if (count > this.bytes.length - this.offset) throw new SnapshotFormatError(`a table of ${count} entries does not fit in the ${this.bytes.length} bytes`);
    if (this.raw._lua_checkstack(L, 4) === 0) throw new SnapshotFormatError('the snapshot does not fit on the Lua stack');
  }

  private u8(): number {
    return this.read(1)[0]!;
  }

  private read(length: number): Buffer {
    if (this.offset + length > this.bytes.length) throw new SnapshotFormatError(`the snapshot ends in the middle of a value (offset ${this.offset})`);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
}
