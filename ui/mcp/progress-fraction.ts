// Finds `progress = { done = n, total = m }` at the top of a `ctx:show` state (msgpack bytes)
// without decoding the rest: a state may hold megabytes, the fraction a few bytes. Only a
// `progress` entry of at most MAX_FRACTION_BYTES is decoded; anything else there is no fraction.
import { decodeSnapshot } from '../../core/index.js';

/** How far a call is, as its state says: `done` of `total` (total may be unknown). */
export interface ProgressFraction {
  done: number;
  total?: number;
}

export const MAX_FRACTION_BYTES = 1024;

const PROGRESS_KEY = Buffer.from('progress');

// The payload's size in bytes of each type whose payload has a fixed size (numbers, fixext), by
// type byte; 0 for the others.
const FIXED_PAYLOAD = new Uint8Array(256);
for (const [type, bytes] of [[0xca, 4], [0xcb, 8], [0xcc, 1], [0xcd, 2], [0xce, 4], [0xcf, 8], [0xd0, 1], [0xd1, 2], [0xd2, 4], [0xd3, 8], [0xd4, 2], [0xd5, 3], [0xd6, 5], [0xd7, 9], [0xd8, 17]] as const) {
  FIXED_PAYLOAD[type] = bytes;
}

/**
 * The offset just past the value at `at`, walking nested values without recursion and without
 * building them. Throws a RangeError on bytes that are not one whole msgpack value.
 */
function skipValue(bytes: Uint8Array, view: DataView, at: number): number {
  let pending = 1;
  while (pending > 0) {
    if (at >= bytes.length) throw new RangeError('truncated msgpack');
    const type = bytes[at]!;
    pending--;
    if (type <= 0x7f || type >= 0xe0 || type === 0xc0 || type === 0xc2 || type === 0xc3) at += 1;
    else if (type <= 0x8f) {
      pending += 2 * (type & 0x0f);
      at += 1;
    } else if (type <= 0x9f) {
      pending += type & 0x0f;
      at += 1;
    } else if (type <= 0xbf) at += 1 + (type & 0x1f);
    else if (FIXED_PAYLOAD[type]! > 0) at += 1 + FIXED_PAYLOAD[type]!;
    else {
      switch (type) {
        case 0xc4:
        case 0xd9:
          at += 2 + view.getUint8(at + 1);
          break;
        case 0xc5:
        case 0xda:
          at += 3 + view.getUint16(at + 1);
          break;
        case 0xc6:
        case 0xdb:
          at += 5 + view.getUint32(at + 1);
          break;
        case 0xc7:
          at += 3 + view.getUint8(at + 1);
          break;
        case 0xc8:
          at += 4 + view.getUint16(at + 1);
          break;
        case 0xc9:
          at += 6 + view.getUint32(at + 1);
          break;
        case 0xdc:
          pending += view.getUint16(at + 1);
          at += 3;
          break;
        case 0xdd:
          pending += view.getUint32(at + 1);
          at += 5;
          break;
        case 0xde:
          pending += 2 * view.getUint16(at + 1);
          at += 3;
          break;
        case 0xdf:
          pending += 2 * view.getUint32(at + 1);
          at += 5;
          break;
        default:
          throw new RangeError(`not msgpack (type byte 0x${type.toString(16)})`);
      }
    }
  }
  if (at > bytes.length) throw new RangeError('truncated msgpack');
  return at;
}

function isProgressKey(bytes: Uint8Array, at: number): boolean {
  return bytes[at] === (0xa0 | PROGRESS_KEY.length) && Buffer.compare(bytes.subarray(at + 1, at + 1 + PROGRESS_KEY.length), PROGRESS_KEY) === 0;
}

function fractionOf(value: unknown): ProgressFraction | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { done, total } = value as { done?: unknown; total?: unknown };
  if (typeof done !== 'number' || !Number.isFinite(done) || done < 0) return undefined;
  if (typeof total === 'number' && Number.isFinite(total) && total > 0) return { done, total };
  return { done };
}

/** The state's `progress` fraction, or undefined when it has none (or a malformed one). */
export function progressFraction(snapshot: Uint8Array): ProgressFraction | undefined {
  const view = new DataView(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength);
  try {
    const type = snapshot[0];
    if (type === undefined) return undefined;
    const entries = type >= 0x80 && type <= 0x8f ? type & 0x0f : type === 0xde ? view.getUint16(1) : type === 0xdf ? view.getUint32(1) : -1;
    let at = type === 0xde ? 3 : type === 0xdf ? 5 : 1;
    for (let entry = 0; entry < entries; entry++) {
      const valueAt = skipValue(snapshot, view, at);
      const end = skipValue(snapshot, view, valueAt);
      if (isProgressKey(snapshot, at)) return end - valueAt <= MAX_FRACTION_BYTES ? fractionOf(decodeSnapshot(snapshot.subarray(valueAt, end))) : undefined;
      at = end;
    }
  } catch {
    // Bytes that are not a whole msgpack value carry no fraction.
  }
  return undefined;
}
