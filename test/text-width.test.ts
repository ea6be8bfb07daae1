// Widths by grapheme cluster, and wrapping that is done once per line and width: a family emoji
// (people joined by zero-width joiners) is one 2-column cluster that no cut or wrap splits, and a
// long line of non-ASCII text wrapped again at the same width is not measured again (compared with
// the first wrap's cost, never against a fixed bound).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { columns, fitColumns, wrapColumns } from '../ui/text-width.js';

const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';

test('a family emoji is two columns and is never split by a wrap or a cut', () => {
  assert.equal(columns(FAMILY), 2);
  const rows = wrapColumns(FAMILY.repeat(5), 3);
  assert.deepEqual(
    rows,
    Array.from({ length: 5 }, () => FAMILY),
  );
  assert.equal(fitColumns(`a${FAMILY}b${FAMILY}`, 4), `a${FAMILY}…`);
  assert.deepEqual(wrapColumns(`ab${FAMILY}cd`, 3), ['ab', `${FAMILY}c`, 'd']);
});

test('a long line of non-ASCII text wrapped again at the same width costs a small part of the first wrap', () => {
  const line = 'é'.repeat(49_000);
  const time = (width: number): { ms: number; rows: string[] } => {
    const start = performance.now();
    const rows = wrapColumns(line, width);
    return { ms: performance.now() - start, rows };
  };
  const first = time(77);
  const again = Math.min(...Array.from({ length: 5 }, () => time(77).ms));
  assert.equal(first.rows.length, Math.ceil(49_000 / 77));
  assert.deepEqual(time(77).rows, first.rows);
  assert.ok(
    again * 10 < first.ms,
    `the first wrap took ${first.ms.toFixed(2)} ms, wrapping it again ${again.toFixed(2)} ms`,
  );
  assert.equal(wrapColumns(line, 40).length, Math.ceil(49_000 / 40));
});
