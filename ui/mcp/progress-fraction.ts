// Finds `progress = { done = n, total = m }` at the top of a `ctx:show` state (msgpack bytes)
// without decoding the rest: a state may hold megabytes, the fraction a few bytes. Only a
// `progress` entry of at most MAX_FRACTION_BYTES is decoded; anything else there is no fraction.
import { decodeSnapshot, MsgpackError } from '../../core/index.js';
import { MsgpackReader } from '../../shared/msgpack.js';

/** How far a call is, as its state says: `done` of `total` (total may be unknown). */
export interface ProgressFraction {
  done: number;
  total?: number;
}

export const MAX_FRACTION_BYTES = 1024;

const PROGRESS_KEY = Buffer.from('progress');

function isProgressKey(bytes: Uint8Array, at: number): boolean {
  return (
    bytes[at] === (0xa0 | PROGRESS_KEY.length) &&
    Buffer.compare(bytes.subarray(at + 1, at + 1 + PROGRESS_KEY.length), PROGRESS_KEY) === 0
  );
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
  try {
    const reader = new MsgpackReader(snapshot);
    if (reader.next() !== 'map') return undefined;
    for (let entries = reader.size; entries > 0; entries--) {
      const keyAt = reader.offset;
      reader.skip();
      const valueAt = reader.offset;
      reader.skip();
      if (isProgressKey(snapshot, keyAt))
        return reader.offset - valueAt <= MAX_FRACTION_BYTES
          ? fractionOf(decodeSnapshot(snapshot.subarray(valueAt, reader.offset)))
          : undefined;
    }
  } catch (error) {
    // Bytes that are not a whole msgpack value carry no fraction.
    if (!(error instanceof MsgpackError)) throw error;
  }
  return undefined;
}
