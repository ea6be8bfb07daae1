// A worker's thread as the scheduler treats it (core/thread-schedule.ts), and the two judgements
// the host makes from it: whether a quiet worker is held up by its task or only kept off the CPUs
// (core/worker-stall.ts), and whether a long task's thread has used the CPU it is lowered for
// (core/thread-priority.ts). Real threads that spin, sleep, or are kept off a CPU (pinned beside
// a spinning thread at nice 19), and a schedule made up for what a test cannot time exactly.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { FREE_RUN_MS } from '../shared/call-priority.js';
import { TaskTable } from '../shared/task-table.js';
import { lowerLongTask } from '../core/thread-priority.js';
import { threadIsRunnable, threadRanNs } from '../core/thread-schedule.js';
import { LOOK_MS, WorkerStall, type ScheduleReader } from '../core/worker-stall.js';

interface Thread {
  worker: Worker;
  threadId: number;
}

/** A thread that spins or sleeps until terminated, at `nice`, pinned to CPU 0 if asked. */
async function startThread(how: 'spin' | 'sleep', options: { nice?: number; pinned?: boolean } = {}): Promise<Thread> {
  const source = `
    const { parentPort } = require('node:worker_threads');
    require('node:os').setPriority(0, ${options.nice ?? 0});
    const stat = require('node:fs').readFileSync('/proc/thread-self/stat', 'latin1');
    parentPort.postMessage(Number(stat.slice(0, stat.indexOf(' '))));
    if (${JSON.stringify(how)} === 'spin') for (;;);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  `;
  const worker = new Worker(source, { eval: true });
  const threadId = await new Promise<number>((resolve) => worker.once('message', resolve));
  if (options.pinned) execFileSync('taskset', ['-p', '-c', '0', String(threadId)], { stdio: 'ignore' });
  return { worker, threadId };
}

/** Runs `body` with the threads, then ends them. */
async function withThreads(threads: Promise<Thread>[], body: (threads: Thread[]) => Promise<void>): Promise<void> {
  const started = await Promise.all(threads);
  try {
    await body(started);
  } finally {
    await Promise.all(started.map((thread) => thread.worker.terminate()));
  }
}

/** Field 19 (nice) of a thread of this process. */
function niceOf(threadId: number): number {
  const stat = readFileSync(`/proc/self/task/${threadId}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How many of `looks` looks at `threadId`, each LOOK_MS long and each a stretch of its own (as for
 * a worker that moves on to its next quick task once it gets a CPU), judged it held up.
 */
async function heldUpLooks(threadId: number, looks: number): Promise<number> {
  const stall = new WorkerStall();
  let heldUp = 0;
  for (let look = 1; look <= looks; look++) {
    assert.equal(stall.isHeldUp(threadId, look, 0, performance.now()), false, 'a first look is not judged');
    await sleep(LOOK_MS);
    if (stall.isHeldUp(threadId, look, 0, performance.now())) heldUp++;
  }
  return heldUp;
}

describe('a thread as the scheduler treats it', { skip: process.platform !== 'linux' && 'read from /proc on Linux only' }, () => {
  test('a spinning thread is runnable and runs on; a sleeping one neither; a gone one cannot be read', async () => {
    let gone = 0;
    await withThreads([startThread('spin'), startThread('sleep')], async ([spinning, sleeping]) => {
      const before = { spin: threadRanNs(spinning!.threadId)!, sleep: threadRanNs(sleeping!.threadId)! };
      await sleep(200);
      const ranMs = (threadRanNs(spinning!.threadId)! - before.spin) / 1e6;
      assert.ok(ranMs > 20, `the spinning thread ran ${ranMs} ms in 200 ms`);
      assert.ok(threadRanNs(sleeping!.threadId)! - before.sleep < 5e6, 'the sleeping thread ran');
      assert.equal(threadIsRunnable(spinning!.threadId), true);
      assert.equal(threadIsRunnable(sleeping!.threadId), false);
      gone = spinning!.threadId;
    });
    assert.equal(threadRanNs(gone), undefined);
    assert.equal(threadIsRunnable(gone), undefined);
    assert.equal(threadRanNs(0), undefined);
  });

  test('a long task lowers its thread once the thread has used the CPU, never at its first look, and a sleeping one stays at nice 0', async () => {
    const table = TaskTable.create(2);
    await withThreads([startThread('spin'), startThread('sleep')], async ([spinning, sleeping]) => {
      const looks = [{ ranNs: undefined }, { ranNs: undefined }];
      table.setThread(0, spinning!.threadId);
      table.setThread(1, sleeping!.threadId);
      const startedMs = Date.now() - 2 * FREE_RUN_MS;
      const sweep = (): void => {
        lowerLongTask(table, 0, startedMs, Date.now(), looks[0]!);
        lowerLongTask(table, 1, startedMs, Date.now(), looks[1]!);
      };
      sweep();
      assert.equal(niceOf(spinning!.threadId), 0, 'lowered at its first look');
      for (let i = 0; i < 100 && niceOf(spinning!.threadId) === 0; i++) {
        await sleep(50);
        sweep();
      }
      assert.equal(niceOf(spinning!.threadId), 10, 'the spinning task was not lowered in 5 s');
      assert.equal(table.threadOf(0), 0, 'lowering takes the thread word, so it happens once');
      assert.equal(niceOf(sleeping!.threadId), 0, 'the sleeping task was lowered');
      assert.equal(table.threadOf(1), sleeping!.threadId);
    });
  });

  test('a worker kept off its CPU is not held up; one that spins or sleeps is', async () => {
    // On CPU 0 beside a spinning thread at nice 0, a thread at nice 19 gets about 1.5% of it, a
    // slice now and then: few looks of 5 ms find it running.
    await withThreads([startThread('spin', { nice: 19, pinned: true }), startThread('spin', { pinned: true }), startThread('sleep')], async ([keptOff, hog, sleeping]) => {
      await sleep(50);
      const looks = 40;
      const [keptOffHeld, hogHeld, sleepingHeld] = await Promise.all([heldUpLooks(keptOff!.threadId, looks), heldUpLooks(hog!.threadId, looks), heldUpLooks(sleeping!.threadId, looks)]);
      assert.ok(keptOffHeld < looks / 2, `the thread kept off its CPU was held up at ${keptOffHeld} of ${looks} looks`);
      assert.ok(hogHeld > looks / 2, `the spinning thread was held up at only ${hogHeld} of ${looks} looks`);
      assert.equal(sleepingHeld, looks, 'the sleeping thread was not always held up');
    });
  });
});

describe('a quiet worker, on a schedule made up', () => {
  /** A schedule for one thread, set by the test. */
  function madeUp(): ScheduleReader & { ran: number | undefined; runnable: boolean | undefined } {
    const schedule = { ran: 0 as number | undefined, runnable: true as boolean | undefined, ranNs: () => schedule.ran, isRunnable: () => schedule.runnable };
    return schedule;
  }

  /** A made-up schedule and a look at it begun at 10 ms (task 1, heard from at 0). */
  function lookBegun(): { schedule: ReturnType<typeof madeUp>; stall: WorkerStall } {
    const schedule = madeUp();
    const stall = new WorkerStall(schedule);
    assert.equal(stall.isHeldUp(7, 1, 0, 10), false, 'a first look is not judged');
    return { schedule, stall };
  }

  test('runnable and barely running is kept off the CPUs; once found running, held up for the rest of the stretch', () => {
    const { schedule, stall } = lookBegun();
    schedule.ran = 4e6;
    assert.equal(stall.isHeldUp(7, 1, 0, 13.5), false, 'judged before the look has lasted 4 ms');
    // Runnable, and ran 0.05 ms in the look: kept off.
    schedule.ran = 0.05e6;
    assert.equal(stall.isHeldUp(7, 1, 0, 15), false);
    schedule.ran = 0.1e6;
    assert.equal(stall.isHeldUp(7, 1, 0, 20), false);
    // Ran 0.5 ms of the next 5 (a slow call at nice 10 sharing its CPU with one at nice 0): held up.
    schedule.ran = 0.6e6;
    assert.equal(stall.isHeldUp(7, 1, 0, 25), true);
    // And stays so while the stretch lasts, though the next looks find it barely running.
    assert.equal(stall.isHeldUp(7, 1, 0, 31), true);
    assert.equal(stall.isHeldUp(7, 1, 0, 40), true);
  });

  test('not runnable (asleep in a system call) is held up', () => {
    const { schedule, stall } = lookBegun();
    schedule.runnable = false;
    assert.equal(stall.isHeldUp(7, 1, 0, 15), true);
  });

  test('a slow call at nice 10 running its even share beside one at nice 0 is held up at its first judged look', () => {
    // CFS weights: nice 0 = 1024, nice 10 = 110; the thread runs 110/1134 (9.7%) of every look.
    const share = 110 / 1134;
    let now = 10;
    const stall = new WorkerStall({ ranNs: () => now * share * 1e6, isRunnable: () => true });
    assert.equal(stall.isHeldUp(7, 1, 0, now), false);
    now += LOOK_MS;
    assert.equal(stall.isHeldUp(7, 1, 0, now), true);
  });

  test('a look that lasted long judges all of it', () => {
    // No call for 500 ms (no task waited in a port): the thread, lowered and crowded, ran 2.5 ms of them.
    const { schedule, stall } = lookBegun();
    schedule.ran = 2.5e6;
    assert.equal(stall.isHeldUp(7, 1, 0, 510), true);
  });

  test('a new task or a new answer begins a new look', () => {
    const { schedule, stall } = lookBegun();
    schedule.ran = 5e6;
    assert.equal(stall.isHeldUp(7, 1, 0, 15), true);
    assert.equal(stall.isHeldUp(7, 2, 0, 16), false, 'another task');
    assert.equal(stall.isHeldUp(7, 2, 12, 17), false, 'heard from since');
    schedule.ran = 10e6;
    assert.equal(stall.isHeldUp(7, 2, 12, 22), true);
  });

  test('a schedule that cannot be read leaves it to the clock: held up', () => {
    const schedule = madeUp();
    schedule.ran = undefined;
    assert.equal(new WorkerStall(schedule).isHeldUp(0, 1, 0, 10), true);
    const gone = lookBegun();
    gone.schedule.runnable = undefined;
    assert.equal(gone.stall.isHeldUp(7, 1, 0, 15), true);
  });
});
