// msgpack for the main thread's own values: session records, and snapshots shown as JSON. The
// format itself is read by shared/msgpack.ts; this builds values from it. Maps decode to plain
// objects whose keys are always own data, `__proto__` included; bytes decode to Uint8Array.
import { isUtf8 } from 'node:buffer';
import { MsgpackError, MsgpackReader, writeHeader, type MsgpackKind } from '../shared/msgpack.js';

/** Deepest nesting written or read: records hold arguments of at most 64 levels, states 200. */
export const MAX_MSGPACK_DEPTH = 1000;

/** Bytes a value is first encoded into; the buffer doubles as it fills. */
const INITIAL_BYTES = 1024;

/**
 * `value` as msgpack. JSON's rules apply
 * (`toJSON`; `undefined`, functions, symbols left out of objects, nil in arrays), but Uint8Arrays are `bin` and
 * BigInts integers. Throws MsgpackError for a BigInt past 64 bits or nesting past MAX_MSGPACK_DEPTH.
 */
export function encodeMsgpack(value: unknown): Buffer {
  const writer = new Writer();
  writer.value(value, 0);
  return writer.result();
}

/** How many bits `value` takes, its sign aside: named in place of its digits, which may run to megabytes. */
function bitLength(value: bigint): number {
  const hex = (value < 0n ? -value : value).toString(16);
  return 4 * hex.length - (4 - Number.parseInt(hex[0]!, 16).toString(2).length);
}

class Writer {
  private buffer = Buffer.allocUnsafe(INITIAL_BYTES);
  private offset = 0;

  result(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }

  value(value: unknown, depth: number): void {
    if (depth > MAX_MSGPACK_DEPTH)
      throw new MsgpackError(`the value is nested deeper than ${MAX_MSGPACK_DEPTH} levels`);
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
        if (typeof (value as { toJSON?: unknown }).toJSON === 'function')
          return this.value((value as { toJSON(): unknown }).toJSON(), depth + 1);
        if (Array.isArray(value)) return this.array(value, depth);
        return this.map(value as Record<string, unknown>, depth);
      default:
        // undefined, functions and symbols: nil, as JSON writes them in an array.
        return this.byte(0xc0);
    }
  }

  private array(items: unknown[], depth: number): void {
    this.header('array', items.length);
    for (let i = 0; i < items.length; i++) this.value(items[i], depth + 1);
  }

  private map(object: Record<string, unknown>, depth: number): void {
    const keys = Object.keys(object).filter((key) => isWritten(object[key]));
    this.header('map', keys.length);
    for (const key of keys) {
      this.string(key);
      this.value(object[key], depth + 1);
    }
  }

  /** Writes the header of a `kind` of `size`, with room for `payload` bytes after it. */
  private header(kind: 'array' | 'map' | 'string' | 'binary', size: number, payload = 0): void {
    this.ensure(5 + payload);
    this.offset = writeHeader(this.buffer, this.offset, kind, size);
  }

  private string(text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    this.header('string', length, length);
    this.offset += this.buffer.write(text, this.offset, 'utf8');
  }

  private bytes(bytes: Uint8Array): void {
    this.header('binary', bytes.length, bytes.length);
    this.buffer.set(bytes, this.offset);
    this.offset += bytes.length;
  }

  private number(value: number): void {
    // Room for the widest form first: the writes below then never move the buffer.
    this.ensure(9);
    const buffer = this.buffer;
    if (!Number.isSafeInteger(value) || Object.is(value, -0)) buffer.writeDoubleBE(value, this.code(0xcb, 8));
    else if (value >= 0 ? value > 0xffffffff : value < -0x80000000) this.bigint(BigInt(value));
    else if (value >= -32 && value < 0x80) buffer[this.offset++] = value & 0xff;
    else if (value < 0) buffer.writeInt32BE(value, this.code(0xd2, 4));
    else if (value <= 0xff) buffer[this.code(0xcc, 1)] = value;
    else if (value <= 0xffff) buffer.writeUInt16BE(value, this.code(0xcd, 2));
    else buffer.writeUInt32BE(value, this.code(0xce, 4));
  }

  private bigint(value: bigint): void {
    this.ensure(9);
    if (value >= 0n && value <= 0xffffffffffffffffn) this.buffer.writeBigUInt64BE(value, this.code(0xcf, 8));
    else if (value < 0n && value >= -0x8000000000000000n) this.buffer.writeBigInt64BE(value, this.code(0xd3, 8));
    else
      throw new MsgpackError(`an integer of ${bitLength(value).toLocaleString('en-US')} bits does not fit in 64 bits`);
  }

  private byte(code: number): void {
    this.ensure(1);
    this.buffer[this.offset++] = code;
  }

  /** Writes `code`, moving past it and the `bytes` that follow it (room for them must be ensured); returns where they start. */
  private code(code: number, bytes: number): number {
    this.buffer[this.offset] = code;
    this.offset += 1 + bytes;
    return this.offset - bytes;
  }

  private ensure(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.offset + bytes));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }
}

const isWritten = (value: unknown): boolean =>
  value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';

/**
 * The value `bytes` encode. Map keys become text (`5`, `2.5`, `true`; bytes as UTF-8, others `\xNN`); integers past
 * 2^53 lose precision; msgpackr's `undefined` (fixext 1, type 0) is undefined. Throws MsgpackError for other
 * extensions, an undefined byte, a value cut short, bytes after it, nesting past MAX_MSGPACK_DEPTH, or more than
 * `maxValues` values.
 */
export function decodeMsgpack(bytes: Uint8Array, maxValues = Infinity): unknown {
  const decoder = new Decoder(new MsgpackReader(bytes, MAX_MSGPACK_DEPTH), maxValues);
  const value = decoder.value(0);
  decoder.reader.end();
  return value;
}

/** What a map or array counts as against a decoding's `maxValues`: an empty one is one byte of msgpack, some fifty of memory. */
const CONTAINER_VALUES = 8;

/** Longest key a scanned map may have: its keys are field names. */
const MAX_FIELD_NAME_BYTES = 256;

/**
 * Each entry's kind by key in the map `bytes` encode, with the values of the keys in `decode` (every key's when it is
 * undefined); others are skipped undecoded, without memory. Undefined when the value is not a map; throws as
 * decodeMsgpack does, and for a key that is not a string of at most MAX_FIELD_NAME_BYTES (left undecoded).
 */
export function scanMsgpackMap(
  bytes: Uint8Array,
  decode: ReadonlySet<string> | undefined,
  maxValues = Infinity,
): Map<string, { kind: MsgpackKind; value?: unknown }> | undefined {
  const decoder = new Decoder(new MsgpackReader(bytes, MAX_MSGPACK_DEPTH), maxValues);
  const reader = decoder.reader;
  if (reader.next() !== 'map') return undefined;
  decoder.count(CONTAINER_VALUES);
  const fields = new Map<string, { kind: MsgpackKind; value?: unknown }>();
  for (let entries = reader.size; entries > 0; entries--) {
    const key = fieldName(reader);
    const at = reader.offset;
    const kind = reader.next();
    reader.offset = at;
    if (decode?.has(key) ?? true) fields.set(key, { kind, value: decoder.value(1) });
    else {
      fields.set(key, { kind });
      reader.skip();
    }
  }
  reader.end();
  return fields;
}

/** The next key of a scanned map, read undecoded unless it is a string of at most MAX_FIELD_NAME_BYTES. */
function fieldName(reader: MsgpackReader): string {
  const kind = reader.next(1);
  if (kind === 'string' && reader.size <= MAX_FIELD_NAME_BYTES)
    return reader.bytes.toString('utf8', reader.start, reader.offset);
  const what = kind === 'string' ? `a string of ${reader.size} bytes` : `of type ${kind}`;
  throw new MsgpackError(`a key ${what}, not a field name`);
}

/** Builds JavaScript values from a MsgpackReader's headers, at most `maxValues` of them (bounding its memory). */
class Decoder {
  private values = 0;

  constructor(
    readonly reader: MsgpackReader,
    private readonly maxValues: number,
  ) {}

  value(depth: number): unknown {
    this.count(1);
    const reader = this.reader;
    switch (reader.next(depth)) {
      case 'integer':
      case 'float':
        return reader.number;
      case 'string':
        return reader.bytes.toString('utf8', reader.start, reader.offset);
      case 'map':
        return this.map(reader.size, depth);
      case 'array':
        return this.array(reader.size, depth);
      case 'nil':
        return null;
      case 'boolean':
        return reader.number === 1;
      case 'binary':
        // A copy: a view would keep the whole buffer read (a session log, say) alive.
        return new Uint8Array(reader.bytes.subarray(reader.start, reader.offset));
      case 'extension':
        if (reader.number === 0 && reader.size === 1 && reader.bytes[reader.start] === 0) return undefined;
        throw new MsgpackError(`an extension of type ${reader.number} (extensions are not read)`);
    }
  }

  private array(count: number, depth: number): unknown[] {
    this.count(CONTAINER_VALUES - 1);
    const items: unknown[] = new Array<unknown>(count);
    for (let i = 0; i < count; i++) items[i] = this.value(depth + 1);
    return items;
  }

  private map(count: number, depth: number): Record<string, unknown> {
    this.count(CONTAINER_VALUES - 1);
    const object: Record<string, unknown> = {};
    for (let i = 0; i < count; i++) {
      const key = keyText(this.value(depth + 1));
      const value = this.value(depth + 1);
      // Defined, not assigned: `__proto__` stays a key instead of replacing the prototype.
      if (key === '__proto__')
        Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
      else object[key] = value;
    }
    return object;
  }

  count(values: number): void {
    this.values += values;
    if (this.values > this.maxValues)
      throw new MsgpackError(`more than ${this.maxValues} values, a map or array counting as ${CONTAINER_VALUES}`);
  }
}

/** A decoded map key as object-key text. */
function keyText(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'number' || typeof key === 'boolean') return String(key);
  if (key instanceof Uint8Array) return bytesText(key);
  throw new MsgpackError(`a map key of type ${key === null ? 'nil' : Array.isArray(key) ? 'array' : typeof key}`);
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/**
 * Bytes as UTF-8 text; when they are not UTF-8, printable ASCII as itself and every other byte written `\xNN`, built
 * in one buffer (at most four bytes of text per byte).
 */
function bytesText(bytes: Uint8Array): string {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (isUtf8(view)) return view.toString('utf8');
  const text = Buffer.allocUnsafe(4 * view.length);
  let length = 0;
  for (const byte of view) {
    if (byte >= 0x20 && byte < 0x7f) text[length++] = byte;
    else {
      text.write('\\x', length, 'latin1');
      text[length + 2] = HEX_DIGITS[byte >> 4]!;
      text[length + 3] = HEX_DIGITS[byte & 15]!;
      length += 4;
    }
  }
  return text.toString('latin1', 0, length);
}
