// Finds `progress = { done = n, total = m }` at the top of a `ctx:show` state (msgpack bytes)
// without decoding the rest: a state may hold megabytes, the fraction a few bytes. Only a
// `progress` entry of at most MAX_FRACTION_BYTES is decoded; anything else there is no fraction.
import { unpack } from 'msgpackr';

/** How far a call is, as its state says: `done` of `total` (total may be unknown). */
export interface ProgressFraction {
  done: number;
  total?: number;
}

export const MAX_FRACTION_BYTES = 1024;

const PROGRESS_KEY = Buffer.from('progress');

// A value's header: its size in bytes (type byte included), its payload's length, and how many values nested in it follow.
function header(view: DataView, at: number): { size: number; payload: number; children: number } {
  const type = view.getUint8(at);
  if (type <= 0x7f || type >= 0xe0 || type === 0xc0 || type === 0xc2 || type === 0xc3) return { size: 1, payload: 0, children: 0 };
  if (type <= 0x8f) return { size: 1, payload: 0, children: 2 * (type & 0x0f) };
  if (type <= 0x9f) return { size: 1, payload: 0, children: type & 0x0f };
  if (type <= 0xbf) return { size: 1, payload: type & 0x1f, children: 0 };
  switch (type) {
    case 0xc4:
    case 0xd9:
      return { size: 2, payload: view.getUint8(at + 1), children: 0 };
    case 0xc5:
    case 0xda:
      return { size: 3, payload: view.getUint16(at + 1), children: 0 };
    case 0xc6:
    case 0xdb:
      return { size: 5, payload: view.getUint32(at + 1), children: 0 };
    case 0xc7:
      return { size: 3, payload: view.getUint8(at + 1), children: 0 };
    case 0xc8:
      return { size: 4, payload: view.getUint16(at + 1), children: 0 };
    case 0xc9:
      return { size: 6, payload: view.getUint32(at + 1), children: 0 };
    case 0xca:
      return { size: 1, payload: 4, children: 0 };
    case 0xcb:
      return { size: 1, payload: 8, children: 0 };
    case 0xcc:
    case 0xd0:
      return { size: 1, payload: 1, children: 0 };
    case 0xcd:
    case 0xd1:
      return { size: 1, payload: 2, children: 0 };
    case 0xce:
    case 0xd2:
      return { size: 1, payload: 4, children: 0 };
    case 0xcf:
    case 0xd3:
      return { size: 1, payload: 8, children: 0 };
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return { size: 2, payload: 2 ** (type - 0xd4), children: 0 };
    case 0xdc:
      return { size: 3, payload: 0, children: view.getUint16(at + 1) };
    case 0xdd:
      return { size: 5, payload: 0, children: view.getUint32(at + 1) };
    case 0xde:
      return { size: 3, payload: 0, children: 2 * view.getUint16(at + 1) };
    case 0xdf:
      return { size: 5, payload: 0, children: 2 * view.getUint32(at + 1) };
    default:
      throw new RangeError(`not msgpack (type byte 0x${type.toString(16)})`);
  }
}

/** The offset just past the value at `at`, walking nested values without recursion. */
function skipValue(view: DataView, at: number): number {
  let pending = 1;
  while (pending > 0) {
    const { size, payload, children } = header(view, at);
    at += size + payload;
    if (at > view.byteLength) throw new RangeError('truncated msgpack');
    pending += children - 1;
  }
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
    if (snapshot.length === 0) return undefined;
    const top = header(view, 0);
    const type = snapshot[0]!;
    const isMap = (type >= 0x80 && type <= 0x8f) || type === 0xde || type === 0xdf;
    if (!isMap) return undefined;
    let at = top.size;
    for (let entry = 0; entry < top.children / 2; entry++) {
      const valueAt = skipValue(view, at);
      const end = skipValue(view, valueAt);
      if (isProgressKey(snapshot, at)) return end - valueAt <= MAX_FRACTION_BYTES ? fractionOf(unpack(snapshot.subarray(valueAt, end))) : undefined;
      at = end;
    }
  } catch {
    // Bytes that are not a whole msgpack value carry no fraction.
  }
  return undefined;
}
