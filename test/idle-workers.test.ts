// Idle workers end after the idle timeout, each counted from when it last became free, and a call
// after that starts a fresh worker: the pool's one idle timer must neither end a busy worker nor
// leave a free one running.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ToolHost } from '../core/index.js';
import { eventually, FIXTURES, startHost } from './helpers.js';

function aliveWorkers(host: ToolHost): number {
  return Object.values(host.stats().modules).reduce((sum, pool) => sum + pool.alive, 0);
}

test('a worker idle past idleTimeoutMs ends, and the next call starts another', async () => {
  const host = await startHost('faults', { idleTimeoutMs: 300 });
  assert.equal((await host.call('echo', { text: 'first' })).content, 'first');
  assert.equal(aliveWorkers(host), 1);
  assert.ok(await eventually(() => aliveWorkers(host) === 0), 'the idle worker was never reaped');
  assert.equal((await host.call('echo', { text: 'again' })).content, 'again');
  assert.equal(aliveWorkers(host), 1);
});

/** The thread ids of a module's live workers. */
function threadIds(host: ToolHost, module: string): number[] {
  return host.moduleThreads(module).map((thread) => thread.threadId);
}

test('a worker free again and again for less than idleTimeoutMs, or busy past it, is never reaped', async () => {
  const host = await startHost('idle', { idleTimeoutMs: 250, maxThreadsPerModule: 1 });
  const module = join(FIXTURES, 'idle', 'init.lua');
  assert.equal((await host.call('echo', { text: 'first' })).content, 'first');
  const [worker] = threadIds(host, module);
  // Free for a moment between calls: the same worker serves them all, unless the machine stalled
  // so long that it really was free for the whole timeout once.
  let longestFree = 0;
  let freeSince = performance.now();
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 60));
    longestFree = Math.max(longestFree, performance.now() - freeSince);
    assert.equal((await host.call('echo', { text: `call ${i}` })).content, `call ${i}`);
    freeSince = performance.now();
  }
  if (threadIds(host, module)[0] !== worker)
    assert.ok(longestFree >= 250, `reaped after being free for at most ${longestFree.toFixed(0)} ms`);
  // Busy for four idle timeouts: a worker reaped under its call would make it a crash.
  const napped = await host.call('nap', { seconds: '1' });
  assert.equal(napped.status, 'ok', napped.content);
});
