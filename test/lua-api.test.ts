// The Lua environment behaves as native Lua 5.4 where the seed needs it: io and os on the real
// file system relative to ctx.cwd, the real environment, require, print, and honest errors.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, startHost, tempDir } from './helpers.js';

const cwd = tempDir();
const hostReady = startHost('lua-api', { cwd });

test('io.open/write/lines/read/seek and os.rename work on real files relative to ctx.cwd', async () => {
  const result = await (await hostReady).call('files', {});
  assert.equal(result.status, 'ok', result.content);
  assert.equal(
    result.content,
    [
      'alpha,beta,42,gamma',
      'alpha',
      'beta',
      'nil',
      '19',
      'nil',
      'notes.txt: No such file or directory',
      'closed file',
      'true',
    ].join('|'),
  );
  assert.equal(readFileSync(join(cwd, 'renamed.txt'), 'utf8'), 'alpha\nbeta\n42\ngamma');
  assert.ok(!existsSync(join(cwd, 'notes.txt')));
});

test('all 256 byte values survive a file round trip, and NUL bytes reach the host intact', async () => {
  const result = await (await hostReady).call('binary', {});
  assert.equal(result.status, 'ok', result.content);
  const expected = Array.from({ length: 256 }, (_, i) =>
    i < 0x80 ? String.fromCharCode(i) : `\\x${i.toString(16)}`,
  ).join('');
  assert.equal(result.content, expected);
});

test('os.getenv reads the host process environment', async () => {
  const result = await (await hostReady).call('env', { name: 'HOME' });
  assert.equal(result.content, process.env['HOME']);
});

test('os.exit(code) ends the call: an error result for a failure, with what the tool printed', async () => {
  const exitCodeBefore = process.exitCode;
  const result = await (await hostReady).call('exit', {});
  assert.equal(result.status, 'error');
  assert.equal(result.content, '3 tests failed\nexit: os.exit(3)');
  assert.equal(process.exitCode, exitCodeBefore);
});

test('os.exit(true) or os.exit() ends the call with success, its result what the tool printed', async () => {
  const host = await hostReady;
  for (const args of [{ code: true }, {}]) {
    const result = await host.call('exit_ok', args);
    assert.equal(result.status, 'ok');
    assert.equal(result.content, 'all tests passed\nno newline');
  }
  const failed = await host.call('exit_ok', { code: false });
  assert.equal(failed.status, 'error');
  assert.equal(failed.content, 'all tests passed\nno newline\nexit_ok: os.exit(1)');
});

test('a runtime error deep in a required module names its real file and line, with a traceback', async () => {
  const result = await (await hostReady).call('deep_error', {});
  assert.equal(result.status, 'error');
  const helper = join(FIXTURES, 'lua-api', 'lua', 'helper.lua');
  assert.ok(result.content.startsWith(`${helper}:5: deep trouble\nstack traceback:`), result.content);
  assert.match(result.content, new RegExp(`${helper}:9: in (local|upvalue|function) 'middle'`));
  assert.doesNotMatch(result.content, /\[moonpool\]/);
});

test('print, io.write and a command’s stderr go to the call log, not the result', async () => {
  const logs: string[] = [];
  const result = await (await hostReady).call('talk', {}, { onLog: (text) => logs.push(text) });
  assert.equal(result.content, 'said');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(logs, ['printed\t1\ttrue\tnil', 'written', 'to-stderr']);
});

test('run returning something other than a string or {content} is an error that says what came back', async () => {
  const host = await hostReady;
  // The message names where `run` is written, as a Lua error names its line.
  const file = join(FIXTURES, 'lua-api', 'init.lua');
  const source = readFileSync(file, 'utf8').split('\n');
  const named = source.findIndex((line) => line.includes("name = 'returns'"));
  const runLine = source.findIndex((line, i) => i > named && line.includes('run = function')) + 1;
  const expectations: [string, string][] = [
    ['number', 'run returned a number (42)'],
    ['nil', 'run returned nil'],
    ['table', 'run returned a table without a `content` field'],
    ['function', 'run returned a function'],
  ];
  for (const [kind, said] of expectations) {
    const result = await host.call('returns', { kind });
    assert.equal(result.status, 'error', kind);
    assert.ok(result.content.startsWith(`${file}:${runLine}: returns: ${said}; return a string`), result.content);
  }
  const reported = await host.call('returns', { kind: 'error_table' });
  assert.deepEqual([reported.status, reported.content], ['error', 'the tool says no']);
});

test('a table raised as an error shows its fields, or its __tostring', async () => {
  const host = await hostReady;
  const firstLine = async (kind: string): Promise<string> => {
    const result = await host.call('raises', { kind });
    assert.equal(result.status, 'error', result.content);
    return result.content.split('\n')[0]!;
  };
  assert.equal(await firstLine('plain'), '(error object is a table: { code = 42 })');
  assert.equal(await firstLine('tostring'), 'custom error 7');
  assert.match(await firstLine('many'), /^\(error object is a table: \{ (field\d+ = \d+, ){10}… 2 more \}\)$/);
});

test('texts cross both ways whole, ASCII or not, short or long, as values and as keys', async () => {
  const texts = [
    '',
    'plain',
    'héllo ✓ 🌍',
    'a'.repeat(256),
    'a'.repeat(257),
    'é'.repeat(128),
    `${'x'.repeat(255)}é`,
    'nul\u0000inside',
    `${'y'.repeat(300)}✓`,
  ];
  const result = await (await hostReady).call('texts', { texts });
  assert.equal(result.status, 'ok', result.content);
  const lines = texts.map((text) => `${Buffer.byteLength(text)}:${text}`);
  assert.equal(result.content, [...lines, 'not utf-8:\\xff\\xc3('].join('\n'));
  assert.deepEqual(result.structured, Object.fromEntries(texts.map((text) => [text, Buffer.byteLength(text)])));
});

test('capture and os.execute report exit codes', async () => {
  const result = await (await hostReady).call('exit_code', {});
  assert.equal(result.content, '7 nil exit 2');
});
