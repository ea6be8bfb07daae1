// The Lua prelude compiled ahead by the build (scripts/compile-prelude.mjs): each file's bytecode,
// framed with the source it came from and a checksum. A worker loads it only when that source is
// byte for byte the one it would parse and the checksum holds (saving ~10 ms a start); otherwise
// it parses the source.
import { crc32 } from 'node:zlib';

/** The prelude's chunk name, in its error messages and tracebacks (every prelude file loads under it). */
export const PRELUDE_CHUNK_NAME = '=[moonpool]';
const MAGIC = Buffer.from('MPLUAC2\n', 'latin1');
const HEADER_BYTES = MAGIC.length + 4;

/** A prelude file's compiled form: MAGIC | source length (u32 LE) | source | CRC-32 of the dump (u32 LE) | dump. */
export function encodePreludeChunk(source: Uint8Array, dump: Uint8Array): Buffer {
  const file = Buffer.alloc(HEADER_BYTES + source.length + 4 + dump.length);
  MAGIC.copy(file, 0);
  file.writeUInt32LE(source.length, MAGIC.length);
  file.set(source, HEADER_BYTES);
  file.writeUInt32LE(crc32(dump), HEADER_BYTES + source.length);
  file.set(dump, HEADER_BYTES + source.length + 4);
  return file;
}

/** The bytecode in `file` if it was compiled from exactly `source` and is intact, else undefined. */
export function preludeDump(file: Buffer, source: Buffer): Buffer | undefined {
  if (file.length < HEADER_BYTES + 4 || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  const sourceLength = file.readUInt32LE(MAGIC.length);
  const dumpStart = HEADER_BYTES + sourceLength + 4;
  if (sourceLength !== source.length || dumpStart > file.length) return undefined;
  if (!file.subarray(HEADER_BYTES, HEADER_BYTES + sourceLength).equals(source)) return undefined;
  const dump = file.subarray(dumpStart);
  // The CRC notices a damaged file, which must never reach Lua's loader.
  return crc32(dump) === file.readUInt32LE(HEADER_BYTES + sourceLength) ? dump : undefined;
}
