// A pool whose queue is full when its running call's thread is ended: the pool must still start a
// worker for the calls waiting, even when that thread never exits (stuck in a system call, as on a
// hung network mount), so that no waiting call is stranded.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { FIXTURES, ROOT, tempDir } from './helpers.js';
import { hungFifo, hungMountChildLine } from './hung-mount-child.js';

const CORE_URL = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;

for (const how of ['times out', 'is cancelled'] as const) {
  test(`at maxThreads 1 and maxQueue 1, the call queued behind one whose thread is stuck in a system call runs when that one ${how}`, { timeout: 90_000 }, async () => {
    // The queued call is the whole queue: a worker started for it must not need a place in it.
    // Its own limits are short, so that a call stranded unpicked ends (as a timeout) within the wait.
    const script = `
      const { ToolHost } = await import(${JSON.stringify(CORE_URL)});
      const [config, stateDir, fifo, how] = process.argv.slice(1);
      const host = await ToolHost.start({ config, stateDir, cwd: stateDir, maxThreadsPerModule: 1, maxQueuePerModule: 1, loadTimeoutMs: 3000, timeoutMs: 3000 });
      const controller = new AbortController();
      const blocked = host.call(how === 'times out' ? 'block' : 'block_long', { fifo }, { signal: controller.signal });
      const queued = host.call('echo', { text: 'queued behind it' });
      if (how !== 'times out') setTimeout(() => controller.abort(), 500);
      const results = await Promise.all([blocked, queued]);
      process.stdout.write(JSON.stringify(results.map((result) => [result.status, result.content])) + '\\n');
    `;
    const line = await hungMountChildLine(script, [join(FIXTURES, 'stuck', 'init.lua'), tempDir(), hungFifo(), how], 60_000);
    assert.ok(line !== undefined, 'the queued call never ended');
    const [blocked, queued] = JSON.parse(line) as [string, string][];
    assert.equal(blocked![0], how === 'times out' ? 'timeout' : 'cancelled');
    assert.deepEqual(queued, ['ok', 'queued behind it']);
  });
}
