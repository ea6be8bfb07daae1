// msgpack for the main thread's own values: session records, and snapshots shown as JSON. No
// dependency (msgpackr's optional native part made every install warn). Maps decode to plain
// objects whose keys are always own data, `__proto__` included; bytes decode to Uint8Array.
import { isAscii, isUtf8 } from 'node:buffer';

/** Bytes that are not msgpack this codec reads, or a value it cannot write. */
export class MsgpackError extends Error {}

/** Deepest nesting written or read: records hold arguments of at most 64 levels, states 200. */
export const MAX_MSGPACK_DEPTH = 1000;

/** Strings up to this many bytes are checked for ASCII in a loop; longer ones natively. */
const SHORT_TEXT_BYTES = 32;

/** Values are encoded into one reused buffer of this size, then copied out (one allocation each). */
const SCRATCH_BYTES = 64 * 1024;
let scratch: Buffer | undefined = Buffer.allocUnsafe(SCRATCH_BYTES);

/**
 * `value` as msgpack, with `reserveStart` zero bytes in front (room for a frame header, so the
 * caller needs no copy). Values follow JSON's rules — `toJSON` is used, `undefined`, functions
 * and symbols are left out of objects and are nil in arrays — except that Uint8Arrays are `bin`
 * and BigInts within 64 bits are integers. Throws MsgpackError for a BigInt past 64 bits or
 * nesting past MAX_MSGPACK_DEPTH.
 */
export function encodeMsgpack(value: unknown, reserveStart = 0): Buffer {
  // A toJSON that encodes (re-entry) finds the scratch buffer taken and gets one of its own.
  const borrowed = scratch;
  scratch = undefined;
  const writer = new Writer(borrowed ?? Buffer.allocUnsafe(SCRATCH_BYTES), reserveStart);
  try {
    writer.value(value, 0);
    return writer.result();
  } finally {
    if (borrowed !== undefined) scratch = borrowed;
  }
}

class Writer {
  private buffer: Buffer;
  private offset: number;

  constructor(
    private readonly initial: Buffer,
    reserveStart: number,
  ) {
    this.buffer = initial;
    this.offset = 0;
    this.ensure(reserveStart);
    this.buffer.fill(0, 0, reserveStart);
    this.offset = reserveStart;
  }

  /** What was written: a copy while it fits the reused buffer, else the grown buffer itself (no copy of a large value). */
  result(): Buffer {
    if (this.buffer !== this.initial) return this.buffer.subarray(0, this.offset);
    const out = Buffer.allocUnsafe(this.offset);
    this.buffer.copy(out, 0, 0, this.offset);
    return out;
  }

  value(value: unknown, depth: number): void {
    if (depth > MAX_MSGPACK_DEPTH) throw new MsgpackError(`the value is nested deeper than ${MAX_MSGPACK_DEPTH} levels`);
    switch (typeof value) {
      case 'string':
        return this.string(value);
      case 'number':
        return this.number(value);
      case 'boolean':
        return this.byte(value ? 0xc3 : 0xc2);
      case 'bigint':
        return this.bigint(value);
      case 'object':
        if (value === null) return this.byte(0xc0);
        if (value instanceof Uint8Array) return this.bytes(value);
        if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return this.value((value as { toJSON(): unknown }).toJSON(), depth + 1);
        if (Array.isArray(value)) return this.array(value, depth);
        return this.map(value as Record<string, unknown>, depth);
      default:
        // undefined, functions and symbols: nil, as JSON writes them in an array.
        return this.byte(0xc0);
    }
  }

  private array(items: unknown[], depth: number): void {
    this.header(items.length, 0x90, 0xdc, 0xdd);
    for (let i = 0; i < items.length; i++) this.value(items[i], depth + 1);
  }

  private map(object: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(object);
    let count = 0;
    for (const key of keys) if (isWritten(object[key])) count++;
    this.header(count, 0x80, 0xde, 0xdf);
    for (const key of keys) {
      const value = object[key];
      if (!isWritten(value)) continue;
      this.string(key);
      this.value(value, depth + 1);
    }
  }

  private header(count: number, fix: number, code16: number, code32: number): void {
    if (count < 16) this.byte(fix | count);
    else if (count <= 0xffff) this.u8u16(code16, count);
    else this.u8u32(code32, count);
  }

  private string(text: string): void {
    // Every UTF-16 unit is at most 3 UTF-8 bytes: reserve the worst case, then write in place.
    this.ensure(5 + text.length * 3);
    if (text.length < 32 && this.shortAscii(text)) return;
    const length = Buffer.byteLength(text, 'utf8');
    if (length < 32) this.byte(0xa0 | length);
    else if (length <= 0xff) this.u8u8(0xd9, length);
    else if (length <= 0xffff) this.u8u16(0xda, length);
    else this.u8u32(0xdb, length);
    this.offset += this.buffer.write(text, this.offset, 'utf8');
  }

  /** Writes a fixstr byte by byte if `text` is ASCII (most keys and ids); false, writing nothing, if not. */
  private shortAscii(text: string): boolean {
    const start = this.offset;
    const buffer = this.buffer;
    buffer[start] = 0xa0 | text.length;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) return false;
      buffer[start + 1 + i] = code;
    }
    this.offset = start + 1 + text.length;
    return true;
  }

  private bytes(bytes: Uint8Array): void {
    this.ensure(5 + bytes.length);
    if (bytes.length <= 0xff) this.u8u8(0xc4, bytes.length);
    else if (bytes.length <= 0xffff) this.u8u16(0xc5, bytes.length);
    else this.u8u32(0xc6, bytes.length);
    this.buffer.set(bytes, this.offset);
    this.offset += bytes.length;
  }

  private number(value: number): void {
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) {
      this.ensure(9);
      this.buffer[this.offset] = 0xcb;
      this.buffer.writeDoubleBE(value, this.offset + 1);
      this.offset += 9;
    } else if (value >= 0) {
      if (value < 0x80) this.byte(value);
      else if (value <= 0xff) this.u8u8(0xcc, value);
      else if (value <= 0xffff) this.u8u16(0xcd, value);
      else if (value <= 0xffffffff) this.u8u32(0xce, value);
      else this.int64(0xcf, value);
    } else if (value >= -32) {
      this.byte(value + 0x100);
    } else if (value >= -0x80000000) {
      this.ensure(5);
      this.buffer[this.offset] = 0xd2;
      this.buffer.writeInt32BE(value, this.offset + 1);
      this.offset += 5;
    } else {
      this.int64(0xd3, value);
    }
  }

  /**
   * A safe integer as 64 bits, big-endian, after `code`: the same bytes as through a BigInt,
   * without making one (every session record's `finishedAt` is past 32 bits).
   */
  private int64(code: number, value: number): void {
    this.ensure(9);
    const high = Math.floor(value / 2 ** 32);
    this.buffer[this.offset] = code;
    this.buffer.writeInt32BE(high | 0, this.offset + 1);
    this.buffer.writeUInt32BE(value - high * 2 ** 32, this.offset + 5);
    this.offset += 9;
  }

  private bigint(value: bigint): void {
    this.ensure(9);
    if (value >= 0n && value <= 0xffffffffffffffffn) {
      this.buffer[this.offset] = 0xcf;
      this.buffer.writeBigUInt64BE(value, this.offset + 1);
    } else if (value < 0n && value >= -0x8000000000000000n) {
      this.buffer[this.offset] = 0xd3;
      this.buffer.writeBigInt64BE(value, this.offset + 1);
    } else {
      throw new MsgpackError(`the integer ${value} does not fit in 64 bits`);
    }
    this.offset += 9;
  }

  private byte(code: number): void {
    this.ensure(1);
    this.buffer[this.offset++] = code;
  }

  private u8u8(code: number, value: number): void {
    this.ensure(2);
    this.buffer[this.offset] = code;
    this.buffer[this.offset + 1] = value;
    this.offset += 2;
  }

  private u8u16(code: number, value: number): void {
    this.ensure(3);
    this.buffer[this.offset] = code;
    this.buffer.writeUInt16BE(value, this.offset + 1);
    this.offset += 3;
  }

  private u8u32(code: number, value: number): void {
    this.ensure(5);
    this.buffer[this.offset] = code;
    this.buffer.writeUInt32BE(value, this.offset + 1);
    this.offset += 5;
  }

  private ensure(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.offset + bytes));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }
}

const isWritten = (value: unknown): boolean => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';

/**
 * The value `bytes` encode. Maps become plain objects: integer, float and boolean keys as their
 * text (`5`, `2.5`, `true`), byte keys as UTF-8 with other bytes written `\xNN`. 64-bit integers
 * past 2^53 lose precision as numbers do; msgpackr's `undefined` (fixext 1, type 0) is undefined.
 * Throws MsgpackError for anything else: other extensions, a byte msgpack does not define, a value
 * cut short, bytes after the value, or nesting past MAX_MSGPACK_DEPTH.
 */
export function decodeMsgpack(bytes: Uint8Array, limits: DecodeLimits = NO_LIMITS): unknown {
  const reader = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits);
  const value = reader.value(0);
  reader.end();
  return value;
}

/** Most values, and most maps and arrays among them, one decoding makes (bounding its memory). */
export interface DecodeLimits {
  values: number;
  containers: number;
}

const NO_LIMITS: DecodeLimits = { values: Infinity, containers: Infinity };

/** What a value is, read from its first byte without decoding it. */
export type MsgpackKind = 'nil' | 'boolean' | 'number' | 'string' | 'binary' | 'array' | 'map' | 'undefined';

/**
 * The entries of the map `bytes` encode, each value's kind by key, and the values of the keys in
 * `decode` (those should hold small values); every other value is skipped without being decoded,
 * in time linear in its bytes and without memory. Undefined when the value is not a map. Throws
 * MsgpackError as decodeMsgpack does.
 */
export function scanMsgpackMap(bytes: Uint8Array, decode: ReadonlySet<string>, limits: DecodeLimits = NO_LIMITS): Map<string, { kind: MsgpackKind; value?: unknown }> | undefined {
  const reader = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), limits);
  const entries = reader.mapEntries();
  if (entries === undefined) return undefined;
  const fields = new Map<string, { kind: MsgpackKind; value?: unknown }>();
  for (let i = 0; i < entries; i++) {
    const keyKind = reader.kind();
    if (keyKind === 'map' || keyKind === 'array' || keyKind === 'nil' || keyKind === 'undefined') throw new MsgpackError(`a map key of type ${keyKind}`);
    const key = keyText(reader.value(1));
    const kind = reader.kind();
    if (decode.has(key)) fields.set(key, { kind, value: reader.value(1) });
    else {
      fields.set(key, { kind });
      reader.skipValue();
    }
  }
  reader.end();
  return fields;
}

class Reader {
  private offset = 0;
  private values = 0;
  private containers = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly limits: DecodeLimits,
  ) {}

  /** The entry count of the map that starts here (moving past its header), or undefined when no map does. */
  mapEntries(): number | undefined {
    const code = this.bytes[this.offset];
    if (code === undefined) throw new MsgpackError('the bytes end in the middle of a value (offset 0)');
    if (code >= 0x80 && code <= 0x8f) return this.u8() & 0x0f;
    if (code !== 0xde && code !== 0xdf) return undefined;
    this.skip(1);
    return code === 0xde ? this.u16() : this.u32();
  }

  /** The kind of the value that starts here, without moving. */
  kind(): MsgpackKind {
    const code = this.bytes[this.offset];
    if (code === undefined) throw new MsgpackError(`the bytes end in the middle of a value (offset ${this.offset})`);
    if (code <= 0x7f || code >= 0xe0 || (code >= 0xca && code <= 0xd3)) return 'number';
    if (code <= 0x8f || code === 0xde || code === 0xdf) return 'map';
    if (code <= 0x9f || code === 0xdc || code === 0xdd) return 'array';
    if (code <= 0xbf || (code >= 0xd9 && code <= 0xdb)) return 'string';
    if (code === 0xc0) return 'nil';
    if (code === 0xc2 || code === 0xc3) return 'boolean';
    if (code >= 0xc4 && code <= 0xc6) return 'binary';
    if (code === 0xd4) return 'undefined';
    throw new MsgpackError(`byte 0x${code.toString(16)} at offset ${this.offset} is not msgpack this reader takes`);
  }

  /** Moves past the value that starts here, nested values included, decoding nothing. */
  skipValue(): void {
    for (let pending = 1; pending > 0; pending--) {
      const code = this.u8();
      if (code <= 0x7f || code >= 0xe0 || code === 0xc0 || code === 0xc2 || code === 0xc3) continue;
      if (code <= 0x8f) pending += 2 * (code & 0x0f);
      else if (code <= 0x9f) pending += code & 0x0f;
      else if (code <= 0xbf) this.skip(code & 0x1f);
      else {
        switch (code) {
          case 0xc4:
          case 0xd9:
            this.skip(this.u8());
            break;
          case 0xc5:
          case 0xda:
            this.skip(this.u16());
            break;
          case 0xc6:
          case 0xdb:
            this.skip(this.u32());
            break;
          case 0xca:
          case 0xd2:
            this.skip(4);
            break;
          case 0xcb:
          case 0xcf:
          case 0xd3:
            this.skip(8);
            break;
          case 0xcc:
          case 0xd0:
            this.skip(1);
            break;
          case 0xcd:
          case 0xd1:
            this.skip(2);
            break;
          case 0xce:
            this.skip(4);
            break;
          case 0xdc:
            pending += this.u16();
            break;
          case 0xdd:
            pending += this.u32();
            break;
          case 0xde:
            pending += 2 * this.u16();
            break;
          case 0xdf:
            pending += 2 * this.u32();
            break;
          case 0xd4:
            if (this.u16() !== 0) throw new MsgpackError(`an extension value at offset ${this.offset - 3} (extensions are not read)`);
            break;
          default:
            throw new MsgpackError(`byte 0x${code.toString(16)} at offset ${this.offset - 1} is not msgpack this reader takes`);
        }
      }
      // Each value pending takes a byte at least: a count past the bytes left is damage.
      if (pending - 1 > this.bytes.length - this.offset) throw new MsgpackError(`a table of ${pending - 1} entries does not fit in the ${this.bytes.length} bytes`);
    }
  }

  end(): void {
    if (this.offset !== this.bytes.length) throw new MsgpackError(`${this.bytes.length - this.offset} bytes follow the value`);
  }

  value(depth: number): unknown {
    if (depth > MAX_MSGPACK_DEPTH) throw new MsgpackError(`the value is nested deeper than ${MAX_MSGPACK_DEPTH} levels`);
    if (++this.values > this.limits.values) throw new MsgpackError(`more than ${this.limits.values} values`);
    const code = this.u8();
    if (code <= 0x7f) return code;
    if (code >= 0xe0) return code - 0x100;
    if (code <= 0x8f) return this.map(code & 0x0f, depth);
    if (code <= 0x9f) return this.array(code & 0x0f, depth);
    if (code <= 0xbf) return this.text(code & 0x1f);
    switch (code) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xc4:
        return this.binary(this.u8());
      case 0xc5:
        return this.binary(this.u16());
      case 0xc6:
        return this.binary(this.u32());
      case 0xca:
        return this.bytes.readFloatBE(this.skip(4));
      case 0xcb:
        return this.bytes.readDoubleBE(this.skip(8));
      case 0xcc:
        return this.u8();
      case 0xcd:
        return this.u16();
      case 0xce:
        return this.u32();
      case 0xcf:
        return Number(this.bytes.readBigUInt64BE(this.skip(8)));
      case 0xd0:
        return this.bytes.readInt8(this.skip(1));
      case 0xd1:
        return this.bytes.readInt16BE(this.skip(2));
      case 0xd2:
        return this.bytes.readInt32BE(this.skip(4));
      case 0xd3:
        return Number(this.bytes.readBigInt64BE(this.skip(8)));
      case 0xd9:
        return this.text(this.u8());
      case 0xda:
        return this.text(this.u16());
      case 0xdb:
        return this.text(this.u32());
      case 0xdc:
        return this.array(this.u16(), depth);
      case 0xdd:
        return this.array(this.u32(), depth);
      case 0xde:
        return this.map(this.u16(), depth);
      case 0xdf:
        return this.map(this.u32(), depth);
      case 0xd4:
        if (this.u16() === 0) return undefined;
        throw new MsgpackError(`an extension value at offset ${this.offset - 3} (extensions are not read)`);
      default:
        throw new MsgpackError(`byte 0x${code.toString(16)} at offset ${this.offset - 1} is not msgpack this reader takes`);
    }
  }

  private array(count: number, depth: number): unknown[] {
    this.fits(count);
    this.countContainer();
    const items: unknown[] = new Array<unknown>(count);
    for (let i = 0; i < count; i++) items[i] = this.value(depth + 1);
    return items;
  }

  private map(count: number, depth: number): Record<string, unknown> {
    this.fits(count * 2);
    this.countContainer();
    const object: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const key = keyText(this.value(depth + 1));
      const value = this.value(depth + 1);
      // Defined, not assigned: `__proto__` stays a key instead of replacing the prototype.
      if (key === '__proto__') Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      else object[key] = value;
    }
    return object;
  }

  private countContainer(): void {
    if (++this.containers > this.limits.containers) throw new MsgpackError(`more than ${this.limits.containers} maps and arrays`);
  }

  /** Refuses a count of entries that cannot fit in the bytes left (one byte each at least). */
  private fits(entries: number): void {
    if (entries > this.bytes.length - this.offset) throw new MsgpackError(`a table of ${entries} entries does not fit in the ${this.bytes.length} bytes`);
  }

  private text(length: number): string {
    const start = this.skip(length);
    const end = start + length;
    // ASCII (most keys, ids and text) decodes as latin1, which is cheaper than UTF-8.
    if (length > SHORT_TEXT_BYTES) return this.bytes.toString(isAscii(this.bytes.subarray(start, end)) ? 'latin1' : 'utf8', start, end);
    for (let i = start; i < end; i++) if (this.bytes[i]! > 0x7f) return this.bytes.toString('utf8', start, end);
    return this.bytes.toString('latin1', start, end);
  }

  private binary(length: number): Uint8Array {
    const start = this.skip(length);
    // A copy: a view would keep the whole buffer read (a session log, say) alive.
    return new Uint8Array(this.bytes.subarray(start, start + length));
  }

  private u8(): number {
    return this.bytes[this.skip(1)]!;
  }

  private u16(): number {
    return this.bytes.readUInt16BE(this.skip(2));
  }

  private u32(): number {
    return this.bytes.readUInt32BE(this.skip(4));
  }

  /** Moves past `length` bytes, returning where they start; refuses to go past the end. */
  private skip(length: number): number {
    const start = this.offset;
    if (start + length > this.bytes.length) throw new MsgpackError(`the bytes end in the middle of a value (offset ${start})`);
    this.offset = start + length;
    return start;
  }
}

/** A decoded map key as object-key text. */
function keyText(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number' || typeof key === 'boolean') return String(key);
  if (key instanceof Uint8Array) return bytesText(key);
  throw new MsgpackError(`a map key of type ${key === null ? 'nil' : Array.isArray(key) ? 'array' : typeof key}`);
}

/** Bytes as UTF-8 text, each byte of an invalid sequence written `\xNN`. */
function bytesText(bytes: Uint8Array): string {
  if (isUtf8(bytes)) return Buffer.from(bytes).toString('utf8');
  return Array.from(bytes, (byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`)).join('');
}
