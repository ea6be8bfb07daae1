// CPU turns through a real host: calls beyond `cpuSlots` take turns and all finish; a call that
// keeps its turn without showing holds the others up only until the queue is seen to be stuck; a
// call timed out or cancelled gives its turn or its place back, so nothing stays counted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallResult, ToolHost } from '../core/index.js';
import { eventually, startHost } from './helpers.js';

const idle = (host: ToolHost): boolean => host.stats().cpu.running === 0 && host.stats().cpu.waiting === 0;

/** Starts `holds` and resolves once it holds its turn and has stopped showing (its title says so). */
function startHolder(
  host: ToolHost,
  args: Record<string, unknown>,
  signal?: AbortSignal,
): { result: Promise<CallResult>; holding: Promise<void> } {
  let holding!: () => void;
  const held = new Promise<void>((resolve) => (holding = resolve));
  const result = host.call('holds', args, {
    onTitle: (title) => title === 'holding' && holding(),
    ...(signal ? { signal } : {}),
  });
  return { result, holding: held };
}

describe('CPU turns', () => {
  test('calls beyond the slots take turns, one at a time, and all finish', async () => {
    // Long enough that the pool's second worker, however slowly it starts on a loaded machine, is
    // up while calls still wait in the queue: it takes one and waits for the slot.
    const steps = 150_000;
    const host = await startHost('turns', { cpuSlots: 1, maxThreadsPerModule: 2 });
    let mostRunning = 0;
    let sawWaiting = false;
    const watcher = setInterval(() => {
      const { running, waiting } = host.stats().cpu;
      mostRunning = Math.max(mostRunning, running);
      sawWaiting ||= waiting > 0;
    }, 5);
    const results = await Promise.all(Array.from({ length: 4 }, () => host.call('shows', { steps })));
    clearInterval(watcher);
    assert.deepEqual(
      results.map((result) => [result.status, result.content]),
      Array.from({ length: 4 }, () => ['ok', `${steps} steps`]),
    );
    assert.equal(mostRunning, 1);
    assert.ok(sawWaiting, 'no call was seen waiting for its turn');
    assert.ok(idle(host), JSON.stringify(host.stats().cpu));
  });

  test('a call that keeps its turn without showing holds the others up only until the queue looks stuck', async () => {
    const host = await startHost('turns', { cpuSlots: 1 });
    const { result: holder, holding } = startHolder(host, { seconds: 4 });
    await holding;
    assert.deepEqual(host.stats().cpu, { slots: 1, running: 1, waiting: 0 });
    const shower = host.call('shows', { steps: 5000 });
    const first = await Promise.race([holder.then(() => 'holds'), shower.then(() => 'shows')]);
    assert.equal(first, 'shows');
    assert.equal((await shower).status, 'ok');
    assert.equal((await holder).status, 'ok');
    assert.ok(idle(host), JSON.stringify(host.stats().cpu));
  });

  test('a call timed out while holding its turn gives the turn back', async () => {
    const host = await startHost('turns', { cpuSlots: 1, timeoutMs: 1000 });
    const result = await host.call('holds', {});
    assert.equal(result.status, 'timeout');
    assert.ok(await eventually(() => idle(host)), JSON.stringify(host.stats().cpu));
    assert.equal((await host.call('shows', { steps: 1000 })).status, 'ok');
  });

  test('a call cancelled while waiting for its turn leaves the queue', async () => {
    const host = await startHost('turns', { cpuSlots: 1 });
    const holderStop = new AbortController();
    const { result: holder, holding } = startHolder(host, {}, holderStop.signal);
    await holding;
    const waiterStop = new AbortController();
    const waiter = host.call('shows', { steps: 100_000_000 }, { signal: waiterStop.signal });
    assert.ok(await eventually(() => host.stats().cpu.waiting === 1), JSON.stringify(host.stats().cpu));
    waiterStop.abort();
    assert.equal((await waiter).status, 'cancelled');
    assert.deepEqual(host.stats().cpu, { slots: 1, running: 1, waiting: 0 });
    holderStop.abort();
    assert.equal((await holder).status, 'cancelled');
    assert.ok(idle(host), JSON.stringify(host.stats().cpu));
  });
});
