// A worker's thread as the scheduler treated it (core/thread-times.ts), and the two judgements the
// host makes from it: whether a quiet worker is held up by its task or only kept off the CPUs
// (core/worker-stall.ts), and whether a long task's thread has used the CPU it is lowered for
// (core/thread-priority.ts). Real threads that spin and sleep, and a scheduler's times made up
// for what a test cannot make a busy machine do on demand.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { lowerLongTask } from '../core/thread-priority.js';
import { threadTimes, type ThreadTimes } from '../core/thread-times.js';
import { WorkerStall } from '../core/worker-stall.js';
import { TaskTable } from '../shared/task-table.js';
import { FREE_RUN_MS } from '../shared/call-priority.js';

/** A thread that spins (or sleeps) until terminated; resolves with it and its Linux thread id. */
async function startThread(how: 'spin' | 'sleep'): Promise<{ worker: Worker; threadId: number }> {
  const source = `
    const { parentPort } = require('node:worker_threads');
    const link = require('node:fs').readlinkSync('/proc/thread-self');
    parentPort.postMessage(Number(link.slice(link.lastIndexOf('/') + 1)));
    if (${JSON.stringify(how)} === 'spin') for (;;);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  `;
  const worker = new Worker(source, { eval: true });
  const threadId = await new Promise<number>((resolve) => worker.once('message', resolve));
  return { worker, threadId };
}

/** Field 19 (nice) of a thread of this process. */
function niceOf(threadId: number): number {
  const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('thread times', { skip: process.platform !== 'linux' && 'read from /proc on Linux only' }, () => {
  test('a spinning thread runs on, a sleeping one neither runs nor waits, a gone one has no times', async () => {
    const spinning = await startThread('spin');
    const sleeping = await startThread('sleep');
    try {
      const before = { spin: threadTimes(spinning.threadId)!, sleep: threadTimes(sleeping.threadId)! };
      await sleep(200);
      const after = { spin: threadTimes(spinning.threadId)!, sleep: threadTimes(sleeping.threadId)! };
      assert.ok(after.spin.ranNs - before.spin.ranNs > 20e6, `the spinning thread ran ${after.spin.ranNs - before.spin.ranNs} ns in 200 ms`);
      assert.ok(after.sleep.ranNs - before.sleep.ranNs < 5e6, 'the sleeping thread ran');
      assert.ok(after.sleep.waitedNs - before.sleep.waitedNs < 5e6, 'the sleeping thread waited for a CPU');
    } finally {
      await spinning.worker.terminate();
      await sleeping.worker.terminate();
    }
    assert.equal(threadTimes(spinning.threadId), undefined);
    assert.equal(threadTimes(0), undefined);
  });

  test('a long task lowers its thread once the thread has used the CPU, and a sleeping one is left at nice 0', async () => {
    const table = TaskTable.create(2);
    const spinning = await startThread('spin');
    const sleeping = await startThread('sleep');
    try {
      const looks = [{ ranNs: undefined }, { ranNs: undefined }];
      table.setThread(0, spinning.threadId);
      table.setThread(1, sleeping.threadId);
      const startedMs = Date.now() - 2 * FREE_RUN_MS;
      const sweep = (): void => {
        lowerLongTask(table, 0, startedMs, Date.now(), looks[0]!);
        lowerLongTask(table, 1, startedMs, Date.now(), looks[1]!);
      };
      sweep();
      // Past FREE_RUN_MS by the clock, but its first look only notes the thread's CPU time.
      assert.equal(niceOf(spinning.threadId), 0);
      for (let i = 0; i < 100 && niceOf(spinning.threadId) === 0; i++) {
        await sleep(50);
        sweep();
      }
      assert.equal(niceOf(spinning.threadId), 10, 'the spinning task was not lowered in 5 s');
      assert.equal(table.threadOf(0), 0, 'lowering takes the thread word, so it happens once');
      assert.equal(niceOf(sleeping.threadId), 0, 'the sleeping task was lowered');
      assert.equal(table.threadOf(1), sleeping.threadId);
    } finally {
      await spinning.worker.terminate();
      await sleeping.worker.terminate();
    }
  });
});

describe('a quiet worker', () => {
  /** A scheduler's times for one thread, set by the test. */
  function madeUpTimes(): { times: ThreadTimes | undefined; read: (threadId: number) => ThreadTimes | undefined } {
    const clock = { times: { ranNs: 0, waitedNs: 0 } as ThreadTimes | undefined, read: (): ThreadTimes | undefined => clock.times };
    return clock;
  }

  test('kept waiting for a CPU is not held up; one that ran or slept through a look is', () => {
    const clock = madeUpTimes();
    const stall = new WorkerStall(clock.read);
    // The first look only begins.
    assert.equal(stall.isHeldUp(7, 1, 0, 10), false);
    // Judged only once the look has lasted 5 ms.
    clock.times = { ranNs: 0, waitedNs: 4e6 };
    assert.equal(stall.isHeldUp(7, 1, 0, 14), false);
    // Waited 4.8 ms of 5 and ran 0.1: kept off the CPUs.
    clock.times = { ranNs: 0.1e6, waitedNs: 4.8e6 };
    assert.equal(stall.isHeldUp(7, 1, 0, 15), false);
    // Ran 5 ms of the next 5: held up by its task, and stays so until the next judgement.
    clock.times = { ranNs: 5.1e6, waitedNs: 4.8e6 };
    assert.equal(stall.isHeldUp(7, 1, 0, 20), true);
    assert.equal(stall.isHeldUp(7, 1, 0, 22), true);
    // Slept through the next: held up (a task blocked in a system call).
    assert.equal(stall.isHeldUp(7, 1, 0, 25), true);
    // Waited through the next: kept off the CPUs again.
    clock.times = { ranNs: 5.1e6, waitedNs: 9.8e6 };
    assert.equal(stall.isHeldUp(7, 1, 0, 30), false);
    // Ran a quarter of the next and waited the rest: a slow task sharing its CPU with three
    // others, held up.
    clock.times = { ranNs: 6.35e6, waitedNs: 13.55e6 };
    assert.equal(stall.isHeldUp(7, 1, 0, 35), true);
  });

  test('a new task or a new answer begins a new look', () => {
    const clock = madeUpTimes();
    const stall = new WorkerStall(clock.read);
    stall.isHeldUp(7, 1, 0, 10);
    clock.times = { ranNs: 5e6, waitedNs: 0 };
    assert.equal(stall.isHeldUp(7, 1, 0, 15), true);
    assert.equal(stall.isHeldUp(7, 2, 0, 16), false, 'another task');
    assert.equal(stall.isHeldUp(7, 2, 12, 17), false, 'heard from since');
    clock.times = { ranNs: 10e6, waitedNs: 0 };
    assert.equal(stall.isHeldUp(7, 2, 12, 22), true);
  });

  test('without its times, the clock alone says it is held up', () => {
    const stall = new WorkerStall(() => undefined);
    assert.equal(stall.isHeldUp(0, 1, 0, 10), true);
    const clock = madeUpTimes();
    const later = new WorkerStall(clock.read);
    later.isHeldUp(7, 1, 0, 10);
    clock.times = undefined;
    assert.equal(later.isHeldUp(7, 1, 0, 15), true);
  });
});
