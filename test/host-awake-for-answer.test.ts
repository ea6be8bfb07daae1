// The host's thread waits awake a moment for a quick worker's answer (core/hot-loop.ts, decided in
// core/worker-pool.ts): only for a worker that waits awake itself and whose answers seldom come
// later than the wait, only while the busy workers leave a CPU slot spare, until the answer comes,
// and never longer than ANSWER_WAIT_MS however long the call then takes. Whether the real worker
// is polling at the moment of a hand-out depends on the machine's load, so most tests set its word
// to "waiting awake" and its share of late answers themselves: the pool's own conditions decide.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ToolHost } from '../core/index.js';
import { HotLoop } from '../core/hot-loop.js';
import { threadRanNs } from '../core/thread-schedule.js';
import { startHost, tempDir } from './helpers.js';

const TOOLS = `
agent.on('discover_tools', function(registry)
  registry:add { name = 'echo', description = 'echo', parameters = { type = 'object', properties = { text = { type = 'string' } } },
    run = function(args) return args.text end }
  -- Spins for ms of the process's CPU time (at least that long on the clock, less CPU elsewhere).
  registry:add { name = 'spin', description = 'spin', parameters = { type = 'object', properties = { ms = { type = 'number' } } },
    run = function(args) local ends = os.clock() + args.ms / 1000 while os.clock() < ends do end return 'spun' end }
  registry:add { name = 'nap', description = 'nap', parameters = { type = 'object', properties = { ms = { type = 'number' } } },
    run = function(args) capture('sleep ' .. args.ms / 1000) return 'woke' end }
end)
`;

/** What the tests reach inside the module's pool and its worker. */
interface WorkerInside {
  lateAnswers: number;
  awakeWord: Int32Array | undefined;
}
interface PoolInside {
  hotLoop: HotLoop;
  workers: Set<WorkerInside>;
  cpuSlots: { countBusyWorker(change: 1 | -1): void };
}

/** A warm host of one module (two CPU slots), and that module's pool. */
async function echoHost(): Promise<{ host: ToolHost; pool: PoolInside }> {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), TOOLS);
  const host = await startHost(join(dir, 'init.lua'), { cpuSlots: 2 });
  for (let i = 0; i < 20; i++) assert.equal((await host.call('echo', { text: `warm ${i}` })).content, `warm ${i}`);
  const [module] = Object.keys(host.stats().modules);
  const pool = (host as unknown as { generation: { modulePool(module: string): PoolInside } }).generation.modulePool(module!);
  assert.equal(pool.workers.size, 1);
  return { host, pool };
}

/** The pool's one worker, made to read as waiting awake, its answers never late. */
function awakeWorker(pool: PoolInside): WorkerInside {
  const [worker] = [...pool.workers];
  worker!.awakeWord = new Int32Array([1]);
  worker!.lateAnswers = 0;
  return worker!;
}

/** The loop's turns one echo call causes. */
async function turnsFor(host: ToolHost, loop: HotLoop): Promise<number> {
  // The last turn of an earlier wait (the one that finds its answer) may still be pending.
  await new Promise((resolve) => setTimeout(resolve, 5));
  const before = loop.turns;
  assert.equal((await host.call('echo', { text: 'x' })).content, 'x');
  return loop.turns - before;
}

/** CPU time the host's thread (this process's main thread, whose id is the pid) has run, in ms. */
function threadCpuMs(): number {
  return threadRanNs(process.pid)! / 1e6;
}

test('a task handed to a worker waiting awake turns the loop, unless the busy workers hold every CPU slot or its answers are often late', { timeout: 60_000 }, async () => {
  const { host, pool } = await echoHost();
  const worker = awakeWorker(pool);
  assert.ok((await turnsFor(host, pool.hotLoop)) > 0, 'no turn for a quick worker waiting awake, with a slot spare');
  // Another worker of the host busy: with this one, they hold both slots.
  worker.lateAnswers = 0;
  pool.cpuSlots.countBusyWorker(1);
  try {
    assert.equal(await turnsFor(host, pool.hotLoop), 0);
  } finally {
    pool.cpuSlots.countBusyWorker(-1);
  }
  worker.lateAnswers = 0.5;
  assert.equal(await turnsFor(host, pool.hotLoop), 0);
  await host.close();
});

test("the host's thread sleeps while it awaits the answer of a worker that was asleep", { timeout: 60_000 }, async () => {
  const { host, pool } = await echoHost();
  // Calls 50 ms apart: the worker sleeps between them (its word at 0), and is woken by each.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = pool.hotLoop.turns;
  for (let i = 0; i < 10; i++) {
    assert.equal((await host.call('echo', { text: `${i}` })).content, `${i}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.equal(pool.hotLoop.turns - before, 0);
  await host.close();
});

test('the wait for an answer ends when the answer comes (on a clock that never moves)', { timeout: 60_000 }, async () => {
  const { host, pool } = await echoHost();
  const worker = awakeWorker(pool);
  const frozen = new HotLoop(() => 0);
  const shared = pool.hotLoop;
  pool.hotLoop = frozen;
  const inside = frozen as unknown as { turning: boolean; waits: Set<unknown> };
  try {
    for (let i = 0; i < 5; i++) {
      worker.lateAnswers = 0;
      assert.equal((await host.call('echo', { text: `${i}` })).content, `${i}`);
      // The answer has been read: a turn or two more at most.
      await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(inside.turning, false, `still turning after the answer came (${frozen.turns} turns)`);
    }
    assert.ok(frozen.turns > 0, 'the loop never turned');
  } finally {
    // A wait that never ended would keep this file's process turning.
    inside.waits.clear();
    pool.hotLoop = shared;
  }
  await host.close();
});

test("the host's thread waits awake only a moment for a quick worker's answer that turns out slow", { timeout: 60_000 }, async () => {
  const { host, pool } = await echoHost();
  awakeWorker(pool);
  const turnsBefore = pool.hotLoop.turns;
  const cpuBefore = threadCpuMs();
  assert.equal((await host.call('nap', { ms: 400 })).content, 'woke');
  const usedMs = threadCpuMs() - cpuBefore;
  assert.ok(pool.hotLoop.turns > turnsBefore, 'the loop did not turn for the call');
  // Turning for the whole call would use most of its 400 ms.
  assert.ok(usedMs < 150, `the host's thread used ${usedMs.toFixed(0)} ms of CPU in a call of 400 ms`);
  await host.close();
});

test("a worker whose answers come late one call in three counts as one not to wait for", { timeout: 60_000 }, async () => {
  const { host, pool } = await echoHost();
  const [worker] = [...pool.workers];
  for (let round = 0; round < 15; round++) {
    assert.equal((await host.call('spin', { ms: 0 })).content, 'spun');
    assert.equal((await host.call('spin', { ms: 0 })).content, 'spun');
    assert.equal((await host.call('spin', { ms: 2 })).content, 'spun');
  }
  // One late in three settles between 0.29 and 0.38 as a running share; quick answers made late
  // by a loaded machine only raise it.
  assert.ok(worker!.lateAnswers >= 0.25, `a share of late answers of ${worker!.lateAnswers.toFixed(2)}`);
  await host.close();
});
