// Decodes a snapshot (msgpack) straight onto a Lua stack, so `render` gets the table that was
// shown, keys with their Lua types (msgpackr's older snapshots, string keys only, decode too).
import { MsgpackError, MsgpackReader } from '../shared/msgpack.js';
import { MAX_VALUE_DEPTH, type LuaRawApi, type LuaStack } from './lua-stack.js';

const INT64_MAX = 0x7fffffffffffffffn;
const NO_BYTES = new MsgpackReader(new Uint8Array(0));

export class SnapshotDecoder {
  private reader = NO_BYTES;

  constructor(
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
  ) {}

  /** Pushes the value `bytes` encode onto thread `L` (nil for an empty snapshot); throws MsgpackError for damaged bytes. */
  push(L: number, bytes: Uint8Array): void {
    this.reader = new MsgpackReader(bytes, MAX_VALUE_DEPTH, 'the snapshot');
    try {
      if (bytes.length === 0 || !this.value(L, 0)) this.raw._lua_pushnil(L);
      this.reader.end();
    } finally {
      this.reader = NO_BYTES;
    }
  }

  /** Pushes one value; false, pushing nothing, for nil and for extensions (Lua has nothing to make of a JavaScript Date, say). */
  private value(L: number, depth: number): boolean {
    const reader = this.reader;
    switch (reader.next(depth)) {
      case 'integer':
        // A uint64 past Lua's integers is a float, as in Lua's own arithmetic.
        if (Number.isSafeInteger(reader.number)) this.raw._lua_pushinteger(L, BigInt(reader.number));
        else if (reader.wide > INT64_MAX) this.raw._lua_pushnumber(L, reader.number);
        else this.raw._lua_pushinteger(L, reader.wide);
        return true;
      case 'float':
        this.raw._lua_pushnumber(L, reader.number);
        return true;
      case 'boolean':
        this.raw._lua_pushboolean(L, reader.number);
        return true;
      case 'string':
      case 'binary':
        this.stack.pushBytes(L, reader.bytes.subarray(reader.start, reader.offset));
        return true;
      case 'array':
        return this.array(L, reader.size, depth);
      case 'map':
        return this.map(L, reader.size, depth);
      default:
        return false;
    }
  }

  private array(L: number, count: number, depth: number): true {
    this.checkStack(L);
    this.raw._lua_createtable(L, count, 0);
    for (let i = 1; i <= count; i++) {
      if (this.value(L, depth + 1)) this.raw._lua_rawseti(L, -2, BigInt(i));
    }
    return true;
  }

  private map(L: number, count: number, depth: number): true {
    this.checkStack(L);
    this.raw._lua_createtable(L, 0, count);
    for (let i = 0; i < count; i++) {
      const keyPushed = this.value(L, depth + 1);
      const valuePushed = this.value(L, depth + 1);
      // A nil or NaN key (the one value not equal to itself), or a nil value, cannot be stored: the entry is left out.
      if (keyPushed && valuePushed && this.raw._lua_rawequal(L, -2, -2) !== 0) this.raw._lua_rawset(L, -3);
      else this.raw._lua_settop(L, -1 - Number(keyPushed) - Number(valuePushed));
    }
    return true;
  }

  private checkStack(L: number): void {
    if (this.raw._lua_checkstack(L, 4) === 0) throw new MsgpackError('the snapshot does not fit on the Lua stack');
  }
}
