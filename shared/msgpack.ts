// The msgpack format, read one header at a time: what each first byte introduces, how many bytes
// follow, and the bound checks every reader of untrusted bytes needs (truncation, a count that
// cannot fit in the bytes left, nesting). The host builds JavaScript values from it, the worker
// pushes Lua values, the MCP progress reader skips to one entry: each keeps only what it builds.

/** Bytes that are not msgpack a reader takes, or a value that cannot be written. */
export class MsgpackError extends Error {}

/** What a header introduces. */
export type MsgpackKind = 'nil' | 'boolean' | 'integer' | 'float' | 'string' | 'binary' | 'extension' | 'array' | 'map';

export class MsgpackReader {
  readonly bytes: Buffer;
  /** Where the next header starts. */
  offset = 0;
  /** After `next`: an integer's or float's value, a boolean's as 1 or 0, an extension's type. */
  number = 0;
  /** After `next` of a 64-bit integer: its exact value (`number` is exact unless past 2^53). */
  wide = 0n;
  /** After `next`: the entries of an array or map, or the bytes of a string's, binary's or extension's payload. */
  size = 0;
  /** After `next` of a string, binary or extension: where its payload starts (it ends at `offset`). */
  start = 0;

  constructor(
    bytes: Uint8Array,
    /** Nesting allowed: an array or map at this depth is refused. */
    private readonly maxDepth = Infinity,
    /** What messages call the whole value. */
    private readonly subject = 'the value',
  ) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * Reads the header at `offset`, at nesting `depth`, and moves past it: past a scalar's payload
   * too, but not into an array's or map's entries (their count is `size`).
   */
  next(depth = 0): MsgpackKind {
    const bytes = this.bytes;
    const code = bytes[this.take(1)]!;
    if (code <= 0x7f || code >= 0xe0) return this.scalar('integer', code <= 0x7f ? code : code - 0x100);
    if (code <= 0x8f) return this.container('map', code & 0x0f, depth);
    if (code <= 0x9f) return this.container('array', code & 0x0f, depth);
    if (code <= 0xbf) return this.payload('string', code & 0x1f);
    if (code >= 0xc4 && code <= 0xc6) return this.payload('binary', this.int(code - 0xc4));
    if (code >= 0xd9 && code <= 0xdb) return this.payload('string', this.int(code - 0xd9));
    if (code === 0xdc || code === 0xdd) return this.container('array', this.int(code - 0xdb), depth);
    if (code === 0xde || code === 0xdf) return this.container('map', this.int(code - 0xdd), depth);
    if (code >= 0xcc && code <= 0xce) return this.scalar('integer', this.int(code - 0xcc));
    if (code >= 0xd0 && code <= 0xd2) return this.scalar('integer', this.int(code - 0xd0, true));
    if ((code >= 0xc7 && code <= 0xc9) || (code >= 0xd4 && code <= 0xd8)) {
      const size = code >= 0xd4 ? 1 << (code - 0xd4) : this.int(code - 0xc7);
      this.number = bytes.readInt8(this.take(1));
      return this.payload('extension', size);
    }
    switch (code) {
      case 0xc0:
        return 'nil';
      case 0xc2:
      case 0xc3:
        return this.scalar('boolean', code & 1);
      case 0xca:
        return this.scalar('float', bytes.readFloatBE(this.take(4)));
      case 0xcb:
        return this.scalar('float', bytes.readDoubleBE(this.take(8)));
      case 0xcf:
        this.wide = bytes.readBigUInt64BE(this.take(8));
        return this.scalar('integer', Number(this.wide));
      case 0xd3:
        this.wide = bytes.readBigInt64BE(this.take(8));
        return this.scalar('integer', Number(this.wide));
      default:
        throw new MsgpackError(`byte 0x${code.toString(16)} at offset ${this.offset - 1} is not msgpack`);
    }
  }

  /** Moves past the whole value at `offset`, nested values included, building nothing: in time linear in its bytes. */
  skip(): void {
    for (let pending = 1; pending > 0; pending--) {
      const kind = this.next();
      if (kind === 'array') pending += this.size;
      else if (kind === 'map') pending += 2 * this.size;
    }
  }

  /** Refuses bytes left after the value. */
  end(): void {
    if (this.offset !== this.bytes.length)
      throw new MsgpackError(`${this.bytes.length - this.offset} bytes follow the value`);
  }

  private scalar(kind: MsgpackKind, value: number): MsgpackKind {
    this.number = value;
    return kind;
  }

  private payload(kind: MsgpackKind, size: number): MsgpackKind {
    this.size = size;
    this.start = this.take(size);
    return kind;
  }

  private container(kind: 'array' | 'map', count: number, depth: number): MsgpackKind {
    if (depth >= this.maxDepth) throw new MsgpackError(`${this.subject} is nested deeper than ${this.maxDepth} levels`);
    // Each entry takes a byte at least: a count past the bytes left is damage, refused before any memory is taken for it.
    if ((kind === 'map' ? 2 * count : count) > this.bytes.length - this.offset)
      throw new MsgpackError(`a table of ${count} entries does not fit in the ${this.bytes.length} bytes`);
    this.size = count;
    return kind;
  }

  /** A big-endian integer of 1, 2 or 4 bytes (`width` 0, 1 or 2), unsigned (a length, a uint) unless `signed`. */
  private int(width: number, signed = false): number {
    const size = 1 << width;
    return signed ? this.bytes.readIntBE(this.take(size), size) : this.bytes.readUIntBE(this.take(size), size);
  }

  /** Moves past `length` bytes, returning where they start; refuses to go past the end. */
  private take(length: number): number {
    const start = this.offset;
    if (start + length > this.bytes.length)
      throw new MsgpackError(`the bytes end in the middle of a value (offset ${start})`);
    this.offset = start + length;
    return start;
  }
}

/** Per sized kind: the fix form's first code and how many sizes it holds, then the 8-, 16- and 32-bit forms' codes (-1: none). */
const HEADER_CODES = {
  array: [0x90, 16, -1, 0xdc, 0xdd],
  map: [0x80, 16, -1, 0xde, 0xdf],
  string: [0xa0, 32, 0xd9, 0xda, 0xdb],
  binary: [0, 0, 0xc4, 0xc5, 0xc6],
} as const;

/** Writes the shortest header of a `kind` of `size` entries or bytes at `at` (5 bytes must be free there); returns where it ends. */
export function writeHeader(buffer: Buffer, at: number, kind: keyof typeof HEADER_CODES, size: number): number {
  const [fix, fixSizes, code8, code16, code32] = HEADER_CODES[kind];
  if (size < fixSizes) {
    buffer[at] = fix | size;
    return at + 1;
  }
  const width = code8 >= 0 && size <= 0xff ? 1 : size <= 0xffff ? 2 : 4;
  buffer[at] = width === 1 ? code8 : width === 2 ? code16 : code32;
  buffer.writeUIntBE(size, at + 1, width);
  return at + 1 + width;
}
