// Opening a FIFO or a device never blocks a worker: files open with O_NONBLOCK, so reading a FIFO
// nobody writes waits for a writer in short polls (the call's timeout still ends it), one nobody
// reads refuses to open for writing, and code is only ever loaded from regular files.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startHost } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'moonpool-fifo-'));
const fifo = join(dir, 'fifo');
const fifoModule = join(dir, 'fifo_module.lua');
execFileSync('mkfifo', [fifo]);
execFileSync('mkfifo', [fifoModule]);
// Should a regression block a worker in open(2), opening both ends here first releases it, so
// the test fails instead of hanging.
after(() => {
  for (const path of [fifo, fifoModule]) {
    if (existsSync(path)) closeSync(openSync(path, constants.O_RDWR | constants.O_NONBLOCK));
  }
  rmSync(dir, { recursive: true, force: true });
});

const host = await startHost('fifo', { cwd: dir });

describe('a FIFO nobody writes or reads', () => {
  test('opens for reading at once and waits for a writer until the call times out', async () => {
    const result = await host.call('read_fifo', { path: fifo });
    assert.equal(result.status, 'timeout');
    const after = await host.call('healthy', {});
    assert.deepEqual([after.status, after.content], ['ok', 'fine']);
  });

  test('refuses to open for writing with ENXIO instead of waiting for a reader', async () => {
    const result = await host.call('write_fifo', { path: fifo });
    assert.deepEqual([result.status, result.content], ['ok', `false | ${fifo}: No such device or address | 6`]);
  });

  test('waits in io.lines too, until the call times out', async () => {
    const result = await host.call('lines_of_fifo', { path: 'fifo' });
    assert.equal(result.status, 'timeout');
  });

  test('is refused as code by dofile and require', async () => {
    const loaded = await host.call('dofile_fifo', { path: fifo });
    assert.equal(
      loaded.content,
      `false | cannot open ${fifo}: Not a regular file (only regular files are loaded as code)`,
    );
    const required = await host.call('require_fifo', {});
    assert.equal(required.status, 'ok');
    assert.match(required.content, /^false \| module 'fifo_module' not found:/);
  });

  test('blocks no worker: every tool of the module answers while the others run', async () => {
    const calls = [
      host.call('read_fifo', { path: fifo }),
      host.call('healthy', {}),
      host.call('write_fifo', { path: fifo }),
      host.call('dofile_fifo', { path: fifo }),
      host.call('lines_of_fifo', { path: fifo }),
      host.call('healthy', {}),
    ];
    const results = await Promise.all(calls);
    assert.deepEqual(
      results.map((result) => result.status),
      ['timeout', 'ok', 'ok', 'ok', 'timeout', 'ok'],
    );
    assert.deepEqual([results[1]!.content, results[5]!.content], ['fine', 'fine']);
  });
});

describe('devices', () => {
  test('read without blocking: /dev/null is empty, /dev/zero gives bytes', async () => {
    const empty = await host.call('read_fifo', { path: '/dev/null' });
    assert.equal(empty.content, 'read | ');
    const sink = await host.call('write_fifo', { path: '/dev/null' });
    assert.equal(sink.content, 'true | nil | nil');
  });
});
