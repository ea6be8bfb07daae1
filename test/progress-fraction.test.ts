// Finding `progress = { done, total }` in a msgpack-encoded `ctx:show` state without decoding the
// rest: found among other keys and after large values, absent or malformed ones give nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeMsgpack as pack } from '../core/msgpack-codec.js';
import { MAX_FRACTION_BYTES, progressFraction } from '../ui/mcp/progress-fraction.js';

test('done and total are found after other keys, large strings and nested tables', () => {
  const state = {
    log: 'x'.repeat(100_000),
    rows: [[1, 2.5, true, null], { a: { b: [] } }],
    progress: { done: 3, total: 10 },
    after: -7,
  };
  assert.deepEqual(progressFraction(pack(state)), { done: 3, total: 10 });
});

test('done without a usable total gives done alone', () => {
  assert.deepEqual(progressFraction(pack({ progress: { done: 2 } })), { done: 2 });
  assert.deepEqual(progressFraction(pack({ progress: { done: 2, total: 0 } })), { done: 2 });
  assert.deepEqual(progressFraction(pack({ progress: { done: 2, total: 'ten' } })), { done: 2 });
});

test('no progress, a progress that is not a fraction, or a negative done gives nothing', () => {
  for (const state of [
    { step: 1 },
    { progress: 5 },
    { progress: { total: 5 } },
    { progress: { done: -1, total: 5 } },
    { progress: { done: 'half' } },
    [1, 2],
    'text',
  ]) {
    assert.equal(progressFraction(pack(state)), undefined, JSON.stringify(state));
  }
});

test('a progress entry larger than MAX_FRACTION_BYTES is not decoded', () => {
  const state = { progress: { done: 1, total: 2, note: 'x'.repeat(MAX_FRACTION_BYTES) } };
  assert.equal(progressFraction(pack(state)), undefined);
});

test('truncated or invalid bytes give nothing instead of throwing', () => {
  const bytes = pack({ other: 'y'.repeat(300), progress: { done: 1, total: 2 } });
  for (const cut of [1, 5, 100, bytes.length - 1])
    assert.equal(progressFraction(bytes.subarray(0, cut)), undefined, `cut at ${cut}`);
  assert.equal(progressFraction(new Uint8Array([0x81, 0xc1, 0x00])), undefined);
  assert.equal(progressFraction(new Uint8Array([0xdf, 0xff, 0xff, 0xff, 0xff])), undefined);
  assert.equal(progressFraction(new Uint8Array(0)), undefined);
});
