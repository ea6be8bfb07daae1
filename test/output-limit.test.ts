// Results over the inline limits: the model gets the head that fits and one notice line; the
// spill file holds the whole output, byte for byte.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { limitOutput } from '../core/output-limit.js';
import { startHost, tempDir } from './helpers.js';

test('a 5 MB result is cut to the inline limit with a notice, and the spill file holds all of it', async () => {
  const host = await startHost('snapshots');
  const result = await host.call('big', {});
  assert.equal(result.status, 'ok');
  assert.ok(result.content.length <= 50_000, `${result.content.length} characters inline`);
  const lines = result.content.split('\n');
  assert.ok(lines.length <= 2_000);
  assert.equal(lines[0], `line 00000001 ${'.'.repeat(49)}`);
  const total = (5 * 1024 * 1024) / 64;
  assert.match(
    lines.at(-1)!,
    new RegExp(
      `^\\[output truncated: shown [\\d,]+ of ${total.toLocaleString('en-US')} lines; the full output is in .+\\]$`,
    ),
  );
  assert.ok(result.spillPath?.startsWith(host.spillDir), result.spillPath);
  assert.ok(lines.at(-1)!.endsWith(`${result.spillPath}]`));
  const spilled = readFileSync(result.spillPath!, 'utf8');
  assert.equal(spilled.length, total * 64);
  assert.equal(spilled.split('\n')[total - 1], `line ${String(total).padStart(8, '0')} ${'.'.repeat(49)}`);
});

test('a result over the line limit spills too, and binary output is spilled as its exact bytes', async () => {
  const host = await startHost('snapshots', { maxInlineLines: 100 });
  const result = await host.call('binary', {});
  assert.ok(result.spillPath);
  const bytes = readFileSync(result.spillPath);
  assert.equal(bytes.length, 200_000);
  for (let i = 0; i < bytes.length; i += 997) assert.equal(bytes[i], i % 256);
  assert.ok(result.content.split('\n').length <= 100);
});

test('a head that cuts a line says how many characters it shows, not lines', () => {
  const spillDir = tempDir();
  const line = 'x'.repeat(5_000);
  const { content } = limitOutput(line, undefined, { maxChars: 1_000, maxLines: 100 }, spillDir, 'tool', 'c1');
  const [shown, notice] = content.split('\n');
  assert.ok(shown!.length > 500 && content.length <= 1_000, `${content.length} characters`);
  assert.match(notice!, new RegExp(`^\\[output truncated: shown ${shown!.length} of 5,000 characters; `));
  const lines = limitOutput(`${line}\n${line}`, undefined, { maxChars: 6_000, maxLines: 100 }, spillDir, 't', 'c2');
  assert.match(lines.content.split('\n')[1]!, /^\[output truncated: shown 1 of 2 lines; /);
});
