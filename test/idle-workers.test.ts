// Idle workers end after the idle timeout, each counted from when it last became free, and a call
// after that starts a fresh worker: the pool's one idle timer must neither end a busy worker nor
// leave a free one running.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Worker } from 'node:worker_threads';
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
  const generation = (host as unknown as { generation: { modulePool(module: string): { threads: Worker[] } } }).generation;
  return generation.modulePool(module).threads.map((thread) => thread.threadId);
}

test('a worker free again and again for less than idleTimeoutMs, or busy past it, is never reaped', async () => {
  const host = await startHost('matrix', { idleTimeoutMs: 250, maxThreadsPerModule: 1 });
  const healthy = join(FIXTURES, 'matrix', 'lua', 'healthy.lua');
  assert.equal((await host.call('echo', { text: 'first' })).content, 'first');
  const [worker] = threadIds(host, healthy);
  // Free for a moment between calls, never for the whole timeout: the same worker serves them all.
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, 80));
    assert.equal((await host.call('echo', { text: `call ${i}` })).content, `call ${i}`);
  }
  assert.deepEqual(threadIds(host, healthy), [worker]);
  // Busy for four idle timeouts: still the same worker, and its call ends well.
  const faulty = join(FIXTURES, 'matrix', 'lua', 'faulty.lua');
  const sleeping = host.call('sleepy', { seconds: '1' });
  assert.ok(await eventually(() => threadIds(host, faulty).length === 1));
  const [sleeper] = threadIds(host, faulty);
  await new Promise((resolve) => setTimeout(resolve, 700));
  assert.deepEqual(threadIds(host, faulty), [sleeper]);
  assert.equal((await sleeping).status, 'ok');
});
