// Bytes that are not UTF-8 reach the host as text with `\xNN` escapes. Decoding them is linear in
// their length and comes after the limits that apply: megabytes of binary printed, returned or used
// as a `structured` key answer well inside the tools' 20 s timeout (the old decoding took seconds a
// megabyte, and past a timeout at these sizes).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { startHost } from './helpers.js';

const MIB = 1024 * 1024;
/** The fixture's pattern, `\xff` `é` `\xe2\x82`, as the host reads it: 11 characters of 5 bytes. */
const PATTERN_TEXT = '\\xffé\\xe2\\x82';
const PATTERN_BYTES = 5;

test('a line of 12 MiB that is not UTF-8 is dropped from the log and counted, and the next line arrives', async () => {
  const host = await startHost('binary-text');
  const lines: string[] = [];
  const result = await host.call('print_binary', { mib: 12 }, { onLog: (line) => lines.push(line) });
  assert.equal(result.status, 'ok', result.content);
  assert.equal(result.content, 'printed');
  const characters = Math.floor((12 * MIB) / PATTERN_BYTES) * PATTERN_TEXT.length;
  assert.deepEqual(lines, [
    'after',
    `[moonpool: 1 more lines (${characters.toLocaleString('en-US')} characters) of this call's log were dropped past its 1,000,000-character limit]`,
  ]);
});

test('12 MiB of returned bytes that are not UTF-8 are decoded with escapes and spilled as their bytes', async () => {
  const host = await startHost('binary-text');
  const result = await host.call('return_binary', { mib: 12 });
  assert.equal(result.status, 'ok', result.content.slice(0, 200));
  assert.ok(result.content.startsWith(PATTERN_TEXT.repeat(100)), result.content.slice(0, 200));
  const spilled = readFileSync(result.spillPath!);
  assert.equal(spilled.length, Math.floor((12 * MIB) / PATTERN_BYTES) * PATTERN_BYTES);
  assert.deepEqual([...spilled.subarray(0, PATTERN_BYTES)], [0xff, 0xc3, 0xa9, 0xe2, 0x82]);
});

test('a `structured` key of 20 or 130 MiB that is not UTF-8 is refused by its bytes, before it is decoded', async () => {
  const host = await startHost('binary-text');
  // 130 MiB would decode to more characters than a JavaScript string may hold.
  for (const mib of [20, 130]) {
    const result = await host.call('binary_key', { mib });
    assert.equal(result.status, 'error', `${mib} MiB`);
    assert.equal(
      result.content,
      'binary_key: run returned a `structured` that cannot be sent: structured too large (more than 16 MiB encoded)',
    );
  }
  const small = await host.call('binary_key', { mib: 2 / MIB });
  assert.equal(small.status, 'ok', small.content);
  assert.deepEqual(small.structured, { '\\xff\\xff': 1 });
});
