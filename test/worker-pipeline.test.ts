// Tasks that wait in a busy worker's port (core/worker-pool.ts): every way such a task can leave
// its worker before running — cancelled, its worker timing out or retiring, the task ahead of it
// turning out slow — must leave it run exactly once elsewhere or not at all, and never stall it
// behind a slow call while another worker could run it. A worker that stays awake between calls
// (workers/lua-worker-entry.cts) must sleep once calls stop coming, and while jobs wait for the
// host's thread to hand them out.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CallResult, ToolHost } from '../core/index.js';
import type { CpuSlots } from '../shared/cpu-slots.js';
import { startHost, tempDir } from './helpers.js';

const TOOLS = `
local function add(registry, name, run, timeout)
  registry:add {
    name = name, description = name, timeout = timeout,
    parameters = { type = 'object', properties = { id = { type = 'string' }, ms = { type = 'number' } } },
    run = run,
  }
end
agent.on('discover_tools', function(registry)
  add(registry, 'echo', function(args) return args.id end)
  -- Appends its id to the marks file: how many times a call ran.
  add(registry, 'mark', function(args)
    local file = assert(io.open(MARKS, 'a'))
    file:write(args.id, '\\n')
    file:close()
    return args.id
  end)
  add(registry, 'busy', function(args)
    local ends = os.clock() + args.ms / 1000
    while os.clock() < ends do end
    return 'done'
  end, 30)
  add(registry, 'nap', function(args) capture('sleep ' .. args.ms / 1000) return 'woke' end, 30)
  -- Returns once the gate file exists (the test opens it), or times out.
  add(registry, 'gate', function()
    while true do
      local file = io.open(GATE)
      if file then file:close() return 'opened' end
      capture('sleep 0.02')
    end
  end, 10)
  add(registry, 'spin', function() while true do end end, 0.3)
  add(registry, 'hoard', function()
    local hoard = {}
    while true do hoard[#hoard + 1] = ('x'):rep(65536) .. #hoard end
  end)
end)
`;

/** A config of one module with the tools above, marking into a file of its own; returns it, the marks file and the gate file (not there until opened). */
function pipelineConfig(): { config: string; marks: string; gate: string } {
  const dir = tempDir();
  const marks = join(dir, 'marks');
  const gate = join(dir, 'gate');
  writeFileSync(marks, '');
  writeFileSync(join(dir, 'init.lua'), `MARKS = ${JSON.stringify(marks)}\nGATE = ${JSON.stringify(gate)}\n${TOOLS}`);
  return { config: join(dir, 'init.lua'), marks, gate };
}

/** How many times each id was marked. */
function markCounts(marks: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const id of readFileSync(marks, 'utf8').split('\n').filter(Boolean)) counts[id] = (counts[id] ?? 0) + 1;
  return counts;
}

/** Warm calls, so the module's worker is up and its calls known to be quick: the next calls may wait in its port. */
async function warm(host: ToolHost): Promise<void> {
  for (let i = 0; i < 20; i++) assert.equal((await host.call('echo', { id: `warm ${i}` })).status, 'ok');
}

/** The thread ids of the workers of the config's one module. */
function workerThreads(host: ToolHost): number[] {
  const [module] = Object.keys(host.stats().modules);
  const generation = (host as unknown as { generation: { modulePool(module: string): { threads: { threadId: number }[] } } }).generation;
  return generation.modulePool(module!).threads.map((thread) => thread.threadId);
}

const ids = (count: number, prefix: string): string[] => Array.from({ length: count }, (_, i) => `${prefix} ${i}`);

test('calls waiting behind a slow call run on another worker, long before the slow call ends', { timeout: 60_000 }, async () => {
  const { config, marks } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 2 });
  await warm(host);
  let slowEnded = 0;
  const slow = host.call('nap', { ms: 4000 }).then((result) => {
    slowEnded = Date.now();
    return result;
  });
  const quick = await Promise.all(ids(8, 'behind').map(async (id) => ({ result: await host.call('mark', { id }), at: Date.now() })));
  assert.equal((await slow).status, 'ok');
  for (const { result, at } of quick) {
    assert.equal(result.status, 'ok', result.content);
    assert.ok(at < slowEnded, 'a quick call waited for the slow one');
  }
  assert.deepEqual(markCounts(marks), Object.fromEntries(ids(8, 'behind').map((id) => [id, 1])));
});

test('a call waiting behind a slow one still moves to another worker after the clock is set back', { timeout: 60_000 }, async () => {
  const { config, marks } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 2 });
  await warm(host);
  const realNow = Date.now;
  let slowEnded = 0;
  const slow = host.call('nap', { ms: 3000 }).then((result) => ((slowEnded = realNow()), result));
  const behind = host.call('mark', { id: 'behind' }).then((result) => ({ result, at: realNow() }));
  // A step back of a minute, once the slow call is picked up: its stamp is then ahead of the
  // host's clock, and must not make its worker look as if it had just begun it.
  await new Promise((resolve) => setTimeout(resolve, 2));
  Date.now = () => realNow() - 60_000;
  try {
    const { result, at } = await behind;
    assert.equal(result.status, 'ok', result.content);
    assert.equal((await slow).status, 'ok');
    assert.ok(at < slowEnded - 1000, `the call behind answered only ${slowEnded - at} ms before the slow one ended`);
  } finally {
    Date.now = realNow;
  }
  assert.deepEqual(markCounts(marks), { behind: 1 });
});

test('a call waiting behind a slow one that became first only after the first look at the ports still moves to another worker', { timeout: 60_000 }, async () => {
  const { config, marks, gate } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 2 });
  await warm(host);
  // Quick calls keep the worker flowing past the pool's first look at its port (10 ms in, each
  // task under 10 ms), so the slow call becomes first after it; the gate opens only once the call
  // behind it has run, which it must do on another worker.
  const ahead = ids(6, 'ahead').map(() => host.call('busy', { ms: 8 }));
  const slow = host.call('gate', {});
  const behind = await host.call('mark', { id: 'behind' });
  writeFileSync(gate, '');
  assert.equal(behind.status, 'ok', behind.content);
  const slowEnded = await slow;
  assert.equal(slowEnded.status, 'ok', slowEnded.content);
  for (const result of await Promise.all(ahead)) assert.equal(result.status, 'ok', result.content);
  assert.deepEqual(markCounts(marks), { behind: 1 });
});

test('calls taken into a busy worker\'s port, with room for another worker, are not refused sooner than on a cold pool', { timeout: 60_000 }, async () => {
  const options = { maxThreadsPerModule: 2, maxQueuePerModule: 1 };
  const burst = (host: ToolHost, prefix: string): Promise<CallResult[]> => Promise.all(ids(4, prefix).map((id) => host.call('mark', { id })));
  // Cold: two calls wait for the two workers being started, the third in the queue.
  const cold = await burst(await startHost(pipelineConfig().config, options), 'cold');
  assert.deepEqual(cold.map((result) => result.status), ['ok', 'ok', 'ok', 'busy']);
  // Warm with one worker and room for another: the calls wait in its port instead of for a second
  // worker, and count against maxQueue no more than they did.
  const host = await startHost(pipelineConfig().config, options);
  await warm(host);
  assert.equal(workerThreads(host).length, 1);
  const warmBurst = await burst(host, 'warm');
  assert.deepEqual(warmBurst.map((result) => result.status), ['ok', 'ok', 'ok', 'busy']);
});

test('callers who keep a worker busy with calls waiting behind each other get a second worker', { timeout: 60_000 }, async () => {
  const { config } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 2 });
  await warm(host);
  // Two callers, each calling again as soon as answered: every 8 ms call waits for the other's,
  // though each is quick enough to wait in the worker's port.
  const threads = new Set<number>();
  await Promise.all(
    [0, 1].map(async () => {
      for (let i = 0; i < 40; i++) {
        const result = await host.call('busy', { ms: 8 });
        assert.equal(result.status, 'ok', result.content);
        for (const thread of workerThreads(host)) threads.add(thread);
      }
    }),
  );
  assert.equal(threads.size, 2);
});

test('a call cancelled while it waits behind another never runs, and the worker goes on', { timeout: 60_000 }, async () => {
  const { config, marks } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 1 });
  await warm(host);
  const threads = workerThreads(host);
  // Cancelled at once (it may not have reached the worker yet), and a little later (it waits in
  // the worker's port, or has gone back to the queue behind the slow call).
  for (const delayMs of [0, 1, 3, 8, 30]) {
    const slow = host.call('busy', { ms: 150 });
    const controller = new AbortController();
    const cancelled = host.call('mark', { id: `cancelled ${delayMs}` }, { signal: controller.signal });
    const after = host.call('mark', { id: `after ${delayMs}` });
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    controller.abort();
    const results: CallResult[] = await Promise.all([slow, cancelled, after]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['ok', 'cancelled', 'ok'],
      `cancelled after ${delayMs} ms`,
    );
  }
  assert.deepEqual(markCounts(marks), Object.fromEntries([0, 1, 3, 8, 30].map((delayMs) => [`after ${delayMs}`, 1])));
  assert.deepEqual(workerThreads(host), threads, 'the worker was never terminated');
});

test('close() while calls wait in a port, the worker having already claimed them, ends each as cancelled at once', { timeout: 60_000 }, async () => {
  const { config } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 1 });
  await warm(host);
  // Posted to the worker at once (a call reaches the pool without waiting); the main thread then
  // sleeps while the worker claims and answers them all, and closes before reading an answer.
  const calls = ids(6, 'claimed').map((id) => host.call('mark', { id }));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
  const closed = host.close();
  const results = await Promise.all(calls);
  await closed;
  assert.deepEqual(
    results.map((result) => result.status),
    calls.map(() => 'cancelled'),
    results.map((result) => result.content).join('; '),
  );
});

for (const [how, tool, status] of [
  ['times out', 'spin', 'timeout'],
  ['runs out of memory and retires', 'hoard', 'error'],
] as const) {
  test(`calls waiting behind one whose worker ${how} each run exactly once`, { timeout: 60_000 }, async () => {
    const { config, marks } = pipelineConfig();
    const host = await startHost(config, { maxThreadsPerModule: 2, memoryLimitBytes: 16 * 1024 * 1024 });
    await warm(host);
    const first = host.call(tool, {});
    const waiting = ids(12, 'waiting').map((id) => host.call('mark', { id }));
    const ended = await first;
    assert.equal(ended.status, status, ended.content);
    for (const result of await Promise.all(waiting)) assert.equal(result.status, 'ok', result.content);
    assert.deepEqual(markCounts(marks), Object.fromEntries(ids(12, 'waiting').map((id) => [id, 1])));
  });
}

test('arguments that cannot be sent fail their call alone among calls sent to a busy worker together', { timeout: 60_000 }, async () => {
  const { config, marks } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 1 });
  await warm(host);
  const slow = host.call('nap', { ms: 200 });
  const calls = ids(6, 'sent').map((id, i) => host.call('mark', i === 3 ? { id, callback: () => 1 } : { id }));
  const results = await Promise.all(calls);
  assert.equal((await slow).status, 'ok');
  results.forEach((result, i) => assert.equal(result.status, i === 3 ? 'error' : 'ok', result.content));
  assert.match(results[3]!.content, /could not be cloned/);
  assert.deepEqual(markCounts(marks), Object.fromEntries(ids(6, 'sent').filter((_, i) => i !== 3).map((id) => [id, 1])));
});

test('a burst of quick calls all answer, each run once, in any mix with slow ones', { timeout: 60_000 }, async () => {
  const { config, marks } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 2 });
  await warm(host);
  const calls = ids(200, 'burst').map((id, i) => (i % 60 === 30 ? host.call('busy', { ms: 40 }) : host.call('mark', { id })));
  const results = await Promise.all(calls);
  assert.deepEqual(new Set(results.map((result) => result.status)), new Set(['ok']));
  const expected = Object.fromEntries(ids(200, 'burst').filter((_, i) => i % 60 !== 30).map((id) => [id, 1]));
  assert.deepEqual(markCounts(marks), expected);
});

test('a worker that waited awake between back-to-back calls sleeps once they stop', { timeout: 60_000 }, async () => {
  const { config } = pipelineConfig();
  const host = await startHost(config);
  await warm(host);
  for (let i = 0; i < 200; i++) await host.call('echo', { id: `${i}` });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const before = process.cpuUsage();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const used = process.cpuUsage(before);
  const usedMs = (used.user + used.system) / 1000;
  // A worker polling its port would use the whole second.
  assert.ok(usedMs < 300, `the idle process used ${usedMs.toFixed(0)} ms of CPU in a second`);
});

test("one slow answer barely moves a quick worker's average task time, which a tool that turns slow still moves", { timeout: 60_000 }, async () => {
  const { config } = pipelineConfig();
  const host = await startHost(config);
  await warm(host);
  const [module] = Object.keys(host.stats().modules);
  const generation = (host as unknown as { generation: { modulePool(module: string): { workers: Set<{ taskCostMs: number }> } } }).generation;
  const averageMs = (): number => [...generation.modulePool(module!).workers][0]!.taskCostMs;
  // An 8 ms call among quick ones, as a call the scheduler kept off the CPU looks: it once made the
  // average a millisecond, and 250 quick calls waiting look like a quarter of a second of work.
  assert.equal((await host.call('busy', { ms: 8 })).status, 'ok');
  assert.ok(averageMs() < 0.5, `the average is ${averageMs()} ms after one slow call`);
  for (let i = 0; i < 12; i++) assert.equal((await host.call('busy', { ms: 8 })).status, 'ok');
  assert.ok(averageMs() > 2, `the average is ${averageMs()} ms after 13 calls of 8 ms`);
});

test("the host's count of workers holding tasks, which lets a worker wait awake, comes back to zero however calls end", { timeout: 60_000 }, async () => {
  const { config } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 2, memoryLimitBytes: 16 * 1024 * 1024 });
  await warm(host);
  const controller = new AbortController();
  const calls = [
    host.call('spin', {}),
    host.call('hoard', {}),
    host.call('nap', { ms: 5000 }, { signal: controller.signal }),
    ...ids(40, 'mixed').map((id) => host.call('mark', { id })),
  ];
  setTimeout(() => controller.abort(), 50);
  const statuses = (await Promise.all(calls)).map((result) => result.status);
  assert.deepEqual(statuses.slice(0, 3), ['timeout', 'error', 'cancelled']);
  const slots = (host as unknown as { cpuSlots: CpuSlots }).cpuSlots;
  assert.equal(slots.busyWorkers(), 0);
  assert.equal(slots.queuedJobs(), 0);
  assert.equal((await host.call('echo', { id: 'after' })).content, 'after');
  assert.equal(slots.busyWorkers(), 0);
  assert.equal(slots.queuedJobs(), 0);
});

test("jobs waiting in a pool's queue keep every worker from waiting awake, and their count comes back to zero however they leave it", { timeout: 60_000 }, async () => {
  const { config, gate } = pipelineConfig();
  const host = await startHost(config, { maxThreadsPerModule: 1 });
  await warm(host);
  const slots = (host as unknown as { cpuSlots: CpuSlots }).cpuSlots;
  const slow = host.call('gate', {});
  const controller = new AbortController();
  const cancelled = ids(2, 'cancelled').map((id) => host.call('mark', { id }, { signal: controller.signal }));
  const waiting = ids(3, 'waiting').map((id) => host.call('mark', { id }));
  // Taken into the busy worker's port first, they go back to the queue once the call ahead has run 10 ms.
  const queuedBy = Date.now() + 5000;
  while (slots.queuedJobs() < 5 && Date.now() < queuedBy) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(slots.queuedJobs(), 5);
  assert.equal(slots.spareForWaiting(), false);
  controller.abort();
  assert.deepEqual((await Promise.all(cancelled)).map((result) => result.status), ['cancelled', 'cancelled']);
  assert.equal(slots.queuedJobs(), 3);
  writeFileSync(gate, '');
  assert.equal((await slow).status, 'ok');
  assert.deepEqual((await Promise.all(waiting)).map((result) => result.status), ['ok', 'ok', 'ok']);
  assert.equal(slots.queuedJobs(), 0);
  assert.equal(slots.spareForWaiting(), true);
  // Closing with jobs waiting takes them off the count too.
  rmSync(gate);
  const left = [host.call('gate', {}), ...ids(3, 'left').map((id) => host.call('mark', { id }))];
  while (slots.queuedJobs() < 3 && Date.now() < queuedBy + 5000) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(slots.queuedJobs(), 3);
  await host.close();
  assert.deepEqual((await Promise.all(left)).map((result) => result.status), ['cancelled', 'cancelled', 'cancelled', 'cancelled']);
  assert.equal(slots.queuedJobs(), 0);
});
