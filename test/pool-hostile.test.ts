// A hostile review of the worker pool (core/worker-pool.ts): every way a task or a worker can end
// early, raced against the others, must leave no call stranded, no task or start-gate place
// behind, and no process or thread running.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, mkdirSync, openSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { ToolHost, type CallResult } from '../core/index.js';
import { encodeMsgpack } from '../core/msgpack-codec.js';
import { StartGate, WORKER_START_SLOTS } from '../core/worker-pool.js';
import { copiedInstall as copyInstall, type CopiedInstall } from './copied-install.js';
import { eventually, FIXTURES, liveProcesses, ROOT, startHost, tempDir, uniqueSeconds } from './helpers.js';
import { hungFifo, hungMountChildLine } from './hung-mount-child.js';

/** The process-wide start gates (this build's, and a copied install's), each seen the first time a pool enters it. */
const gates = new Set<StartGate>();
/** Places asked for at any start gate: one per worker start. */
let gateEntries = 0;

/** Watches the gates of `gateClass` (StartGate as a build of moonpool loaded it). */
function watchGates(gateClass: typeof StartGate): void {
  const enter = Object.getOwnPropertyDescriptor(gateClass.prototype, 'enter')!.value as StartGate['enter'];
  gateClass.prototype.enter = function (this: StartGate, signal: AbortSignal) {
    gates.add(this);
    gateEntries++;
    return enter.call(this, signal);
  };
}
watchGates(StartGate);

/** Places taken at the start gate and starts waiting there, over every gate seen. */
function gatePlaces(): { taken: number; waiting: number } {
  let taken = 0;
  let waiting = 0;
  for (const gate of gates) {
    taken += gate.taken;
    waiting += gate.queued;
  }
  return { taken, waiting };
}

/** Nothing held by a module's pool whose calls have all ended: no task running or waiting, and a call still runs. */
async function assertDrained(host: ToolHost, module: string, tool = 'echo'): Promise<void> {
  const { busy, queued } = host.stats().modules[module] ?? { busy: 0, queued: 0 };
  assert.deepEqual({ busy, queued }, { busy: 0, queued: 0 });
  if (tool === 'echo') assert.match((await host.call('echo', { text: 'drained' })).content, /drained$/);
}

const TOOLS = `
local function add(registry, name, run, timeout)
  registry:add {
    name = name, description = name, timeout = timeout,
    parameters = { type = 'object', properties = { text = { type = 'string' }, seconds = { type = 'string' } } },
    run = run,
  }
end
agent.on('discover_tools', function(registry)
  add(registry, 'echo', function(args) return args.text end)
  add(registry, 'spin', function() while true do end end, 0.2)
  add(registry, 'nap', function(args) capture('sleep ' .. args.seconds) return 'woke' end)
  add(registry, 'spawn_loop', function(args)
    while true do os.execute('sleep ' .. args.seconds .. ' &') end
  end)
  add(registry, 'hoard', function()
    local hoard = {}
    while true do hoard[#hoard + 1] = ('x'):rep(65536) .. #hoard end
  end)
end)
`;

/** A config of one module (init.lua) with the tools above; `slowFile` makes its load loop while that file exists. */
function toolsConfig(slowFile?: string): string {
  const dir = tempDir();
  const slow =
    slowFile === undefined
      ? ''
      : `local slow = io.open(${JSON.stringify(slowFile)})\nif slow then slow:close() while true do end end\n`;
  writeFileSync(join(dir, 'init.lua'), slow + TOOLS);
  return join(dir, 'init.lua');
}

/** A config of `count` modules, lua/mN.lua each defining tool tN (it echoes its text). */
function manyModulesConfig(count: number): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'lua'));
  const requires: string[] = [];
  for (let i = 1; i <= count; i++) {
    requires.push(`require('m${i}')`);
    writeFileSync(
      join(dir, 'lua', `m${i}.lua`),
      `agent.on('discover_tools', function(registry) registry:add { name = 't${i}', description = 'x', run = function(args) return 't${i} ' .. tostring(args.text) end } end)\n`,
    );
  }
  writeFileSync(join(dir, 'init.lua'), `${requires.join('\n')}\n`);
  return join(dir, 'init.lua');
}

function statuses(results: CallResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) counts[result.status] = (counts[result.status] ?? 0) + 1;
  return counts;
}

const CORE_URL = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;

// With a queue of one, the queued call is the whole queue: a worker started for it must not need a
// place in it. The short limits end a call stranded unpicked (as a timeout) within the wait.
const STUCK_BESIDE = [
  { pool: 'at maxThreads 1', options: 'maxThreadsPerModule: 1' },
  {
    pool: 'at maxThreads 1 and maxQueue 1',
    options: 'maxThreadsPerModule: 1, maxQueuePerModule: 1, loadTimeoutMs: 3000, timeoutMs: 3000',
  },
];
for (const { pool, options } of STUCK_BESIDE) {
  for (const how of ['times out', 'is cancelled'] as const) {
    test(
      `${pool}, the call queued behind one whose thread is stuck in a system call still runs when that one ${how}`,
      { timeout: 90_000 },
      async () => {
        const script = `
      const { ToolHost } = await import(${JSON.stringify(CORE_URL)});
      const [config, stateDir, fifo, how] = process.argv.slice(1);
      const host = await ToolHost.start({ config, stateDir, cwd: stateDir, ${options} });
      const controller = new AbortController();
      const blocked = host.call(how === 'times out' ? 'block' : 'block_long', { fifo }, { signal: controller.signal });
      const queued = host.call('echo', { text: 'queued behind it' });
      if (how !== 'times out') setTimeout(() => controller.abort(), 500);
      const results = await Promise.all([blocked, queued]);
      process.stdout.write(JSON.stringify(results.map((result) => [result.status, result.content])) + '\\n');
    `;
        const line = await hungMountChildLine(
          script,
          [join(FIXTURES, 'stuck', 'init.lua'), tempDir(), hungFifo(), how],
          60_000,
        );
        assert.ok(line !== undefined, 'the queued call never ended');
        const [blocked, queued] = JSON.parse(line) as [string, string][];
        assert.equal(blocked![0], how === 'times out' ? 'timeout' : 'cancelled');
        assert.deepEqual(queued, ['ok', 'queued behind it']);
      },
    );
  }
}

/** A copy of this build (copied-install.ts) whose own start gate is watched too. */
async function copiedInstall(): Promise<CopiedInstall> {
  const copy = await copyInstall();
  watchGates((await copy.loadCore<{ StartGate: typeof StartGate }>('worker-pool.js')).StartGate);
  return copy;
}

test(
  'a worker file missing fails the calls waiting with why; once the file is back, calls run again',
  { timeout: 60_000 },
  async () => {
    const { install, ToolHost: CopiedHost } = await copiedInstall();
    const host = await CopiedHost.start({ config: toolsConfig(), stateDir: tempDir(), maxThreadsPerModule: 1 });
    after(() => host.close());
    const entry = join(install, 'dist', 'workers', 'lua-worker-entry.cjs');
    renameSync(entry, `${entry}.away`);
    const failed = await Promise.all([host.call('echo', { text: 'a' }), host.call('echo', { text: 'b' })]);
    for (const result of failed) {
      assert.equal(result.status, 'crashed');
      assert.match(result.content, /a worker could not start: .*lua-worker-entry\.cjs/);
    }
    renameSync(`${entry}.away`, entry);
    const result = await host.call('echo', { text: 'back' });
    assert.deepEqual([result.status, result.content], ['ok', 'back']);
  },
);

test('a worker whose code fails to load is never handed another call', { timeout: 60_000 }, async () => {
  const { install, ToolHost: CopiedHost } = await copiedInstall();
  const host = await CopiedHost.start({ config: manyModulesConfig(3), stateDir: tempDir(), maxThreadsPerModule: 1 });
  after(() => host.close());
  const wasmoon = join(install, 'node_modules', 'wasmoon');
  renameSync(wasmoon, `${wasmoon}.away`);
  // Whether the dying worker's last answer arrives before it exits varies: three modules, two
  // calls each (a third crash would disable the module).
  for (const tool of ['t1', 't2', 't3']) {
    for (const result of await Promise.all(['a', 'b'].map((text) => host.call(tool, { text })))) {
      assert.equal(result.status, 'crashed');
      assert.match(result.content, /a worker could not start: .*wasmoon/);
      assert.doesNotMatch(result.content, /could not start: a worker could not start/);
    }
  }
  renameSync(`${wasmoon}.away`, wasmoon);
  const result = await host.call('t1', { text: 'back' });
  assert.deepEqual([result.status, result.content], ['ok', 't1 back']);
});

test(
  'a worker whose code fails to load with no task to fail exits, and is never handed the next call',
  { timeout: 60_000 },
  async () => {
    const { install, ToolHost: CopiedHost } = await copiedInstall();
    const config = toolsConfig();
    const host = await CopiedHost.start({ config, stateDir: tempDir(), maxThreadsPerModule: 1 });
    after(() => host.close());
    const wasmoon = join(install, 'node_modules', 'wasmoon');
    renameSync(wasmoon, `${wasmoon}.away`);
    // Cancelled once its worker is starting: the worker comes up to no task (as one started for a
    // task another worker took, or a warm task stopped at the start-failure limit).
    const stop = new AbortController();
    const pending = host.call('echo', { text: 'x' }, { signal: stop.signal });
    assert.ok(await eventually(() => host.moduleThreads(moduleOf(config)).length > 0));
    stop.abort();
    assert.ok(['cancelled', 'crashed'].includes((await pending).status));
    assert.ok(
      await eventually(() => host.moduleThreads(moduleOf(config)).length === 0),
      'the worker whose code failed to load is still alive',
    );
    renameSync(`${wasmoon}.away`, wasmoon);
    const result = await host.call('echo', { text: 'back' });
    assert.deepEqual([result.status, result.content], ['ok', 'back']);
  },
);

/** The module key of toolsConfig's tools. */
function moduleOf(config: string): string {
  return realpathSync(config);
}

test(
  'at maxThreads 1, calls cancelled while they wait leave every other call a worker, and the pool holds nothing after',
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 1 });
    const stops: AbortController[] = [];
    const pending: Promise<CallResult>[] = [];
    for (let i = 0; i < 40; i++) {
      const stop = new AbortController();
      stops.push(stop);
      pending.push(
        host.call(
          i % 4 === 0 ? 'nap' : 'echo',
          { text: `e${i}`, seconds: '0.05' },
          { signal: stop.signal, onLog: () => undefined },
        ),
      );
    }
    // Some cancelled at once (still queued), some a little later (running or queued).
    for (let i = 1; i < 40; i += 3) stops[i]!.abort();
    setTimeout(() => {
      for (let i = 2; i < 40; i += 5) stops[i]!.abort();
    }, 60);
    const results = await Promise.all(pending);
    results.forEach((result, i) => {
      if (result.status === 'cancelled') return;
      assert.equal(result.status, 'ok', `${i}: ${result.content}`);
      assert.equal(result.content, i % 4 === 0 ? 'woke' : `e${i}`);
    });
    for (let i = 1; i < 40; i += 3) assert.equal(results[i]!.status, 'cancelled');
    await assertDrained(host, moduleOf(config));
  },
);

test(
  'thousands of calls cancelled or timed out leave no row, listener, retired reply or queued job behind',
  { timeout: 120_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 1, maxQueuePerModule: 4096 });
    await host.call('echo', { text: 'warm' });
    const ahead = host.call('nap', { seconds: '0.5' });
    const stops = Array.from({ length: 3000 }, () => new AbortController());
    const queued = stops.map((stop, i) =>
      host.call('echo', { text: `q${i}` }, { signal: stop.signal, onLog: () => undefined }),
    );
    assert.equal(host.stats().modules[moduleOf(config)]!.queued, 3000);
    for (const stop of stops) stop.abort();
    assert.deepEqual(statuses(await Promise.all(queued)), { cancelled: 3000 });
    assert.equal((await ahead).status, 'ok');
    const spins = [];
    for (let i = 0; i < 10; i++) spins.push(await host.call('spin', {}, { onLog: () => undefined }));
    assert.deepEqual(statuses(spins), { timeout: 10 });
    await assertDrained(host, moduleOf(config));
  },
);

test(
  'a call that times out while its cold worker loads the config ends as a timeout; the next call, once loading is quick, runs',
  { timeout: 60_000 },
  async () => {
    const slowFile = join(tempDir(), 'slow');
    const config = toolsConfig(slowFile);
    // Limits a worker's start on a loaded machine stays under: only the endless load reaches them.
    const host = await startHost(config, { maxThreadsPerModule: 2, loadTimeoutMs: 5000, timeoutMs: 5000 });
    writeFileSync(slowFile, '');
    const stop = new AbortController();
    const [timedOut, cancelled] = await Promise.all([
      host.call('echo', { text: 'slow' }),
      host.call('echo', { text: 'cancelled' }, { signal: stop.signal }),
      new Promise((resolve) => setTimeout(resolve, 150)).then(() => stop.abort()),
    ]);
    assert.equal(timedOut.status, 'timeout', timedOut.content);
    assert.equal(cancelled.status, 'cancelled', cancelled.content);
    rmSync(slowFile);
    const result = await host.call('echo', { text: 'quick' });
    assert.deepEqual([result.status, result.content], ['ok', 'quick']);
    await assertDrained(host, moduleOf(config));
  },
);

test(
  'a worker that retires after running out of memory hands over its reply, and the call queued behind it gets a new worker',
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 1, memoryLimitBytes: 16 * 1024 * 1024 });
    const [hoard, echo] = await Promise.all([host.call('hoard', {}), host.call('echo', { text: 'after' })]);
    assert.equal(hoard.status, 'error');
    assert.match(hoard.content, /memory/);
    assert.deepEqual([echo.status, echo.content], ['ok', 'after']);
    await assertDrained(host, moduleOf(config));
  },
);

// Nearly every round starts workers (idle ones are reaped after 5 ms): 19-41 s at load 11 on 2 CPUs,
// over 60 s at load 15. The limit only guards against a hang.
test(
  'idle reaping racing new calls: every call runs, on a worker kept or a new one',
  { timeout: 300_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 2, idleTimeoutMs: 5 });
    const results: CallResult[] = [];
    for (let i = 0; i < 60; i++) {
      await new Promise((resolve) => setTimeout(resolve, i % 7));
      results.push(
        ...(await Promise.all([host.call('echo', { text: `${i}a` }), host.call('echo', { text: `${i}b` })])),
      );
    }
    results.forEach((result, i) => assert.equal(result.content, `${Math.floor(i / 2)}${i % 2 === 0 ? 'a' : 'b'}`));
    await assertDrained(host, moduleOf(config));
  },
);

test(
  'a reload while calls are queued: they finish on the generation they were queued on, which then closes',
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 1 });
    const pending = [
      host.call('nap', { seconds: '0.3' }),
      ...Array.from({ length: 5 }, (_, i) => host.call('echo', { text: `old ${i}` })),
    ];
    writeFileSync(config, TOOLS.replace('return args.text', "return 'new ' .. args.text"));
    assert.equal((await host.reload()).ok, true);
    const fresh = host.call('echo', { text: 'call' });
    assert.deepEqual(
      (await Promise.all(pending)).map((result) => result.content),
      ['woke', 'old 0', 'old 1', 'old 2', 'old 3', 'old 4'],
    );
    assert.equal((await fresh).content, 'new call');
    // The new generation's inspect worker and module worker are all that is left.
    assert.ok(await eventually(() => host.stats().workerThreads === 2), `${host.stats().workerThreads} worker threads`);
    await assertDrained(host, moduleOf(config));
  },
);

test(
  'close() while workers are still starting cancels every call and leaves no start-gate place taken',
  { timeout: 60_000 },
  async () => {
    const host = await startHost(manyModulesConfig(8), { maxThreadsPerModule: 2 });
    const pending = Array.from({ length: 8 }, (_, i) => host.call(`t${i + 1}`, { text: 'x' }));
    await new Promise((resolve) => setTimeout(resolve, 30));
    await host.close();
    assert.deepEqual(statuses(await Promise.all(pending)), { cancelled: 8 });
    assert.equal(host.stats().stuckThreads, 0);
    assert.ok(
      await eventually(() => gatePlaces().taken === 0 && gatePlaces().waiting === 0),
      JSON.stringify(gatePlaces()),
    );
  },
);

test(
  'stats() under load: busy never above alive nor maxThreads, queued never above maxQueue (and the calls of workers starting), all back to zero after',
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 2, maxQueuePerModule: 8 });
    const wrong: string[] = [];
    let inFlight = 0;
    const sampler = setInterval(() => {
      const stats = host.stats().modules[moduleOf(config)];
      if (stats === undefined) return;
      const { alive, busy, queued } = stats;
      if (busy > alive || alive > 2 || queued > 8 + (2 - alive) || busy + queued > inFlight || busy < 0 || queued < 0)
        wrong.push(JSON.stringify({ alive, busy, queued, inFlight }));
    }, 2);
    const call = async (i: number): Promise<CallResult> => {
      inFlight++;
      const stop = new AbortController();
      if (i % 3 === 0) setTimeout(() => stop.abort(), i % 20);
      try {
        return await host.call(
          i % 5 === 0 ? 'nap' : 'echo',
          { text: `${i}`, seconds: '0.02' },
          { signal: stop.signal },
        );
      } finally {
        inFlight--;
      }
    };
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => call(i)));
    clearInterval(sampler);
    assert.deepEqual(wrong, []);
    for (const result of results)
      assert.ok(['ok', 'cancelled', 'busy'].includes(result.status), `${result.status}: ${result.content}`);
    assert.ok(
      results.some((result) => result.status === 'busy'),
      'past maxQueue, calls are refused',
    );
    const { busy, queued } = host.stats().modules[moduleOf(config)]!;
    assert.deepEqual({ busy, queued }, { busy: 0, queued: 0 });
  },
);

test(
  "cancels racing replies: each call is its answer or cancelled, never another call's, and the pool is whole after",
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 2 });
    await host.call('echo', { text: 'warm' });
    const results = await Promise.all(
      Array.from({ length: 240 }, (_, i) => {
        const stop = new AbortController();
        setTimeout(() => stop.abort(), i % 12);
        return host.call('echo', { text: `r${i}` }, { signal: stop.signal });
      }),
    );
    results.forEach((result, i) =>
      assert.ok(
        result.status === 'cancelled' || (result.status === 'ok' && result.content === `r${i}`),
        `${i}: ${result.status} ${result.content}`,
      ),
    );
    await assertDrained(host, moduleOf(config));
    assert.equal((await host.call('echo', { text: 'whole' })).content, 'whole');
  },
);

test(
  'a call cancelled while it starts processes as fast as it can leaves none behind',
  { timeout: 120_000 },
  async () => {
    const host = await startHost(toolsConfig(), { maxThreadsPerModule: 2 });
    const rounds = Array.from({ length: 24 }, () => uniqueSeconds());
    for (const [i, seconds] of rounds.entries()) {
      const stop = new AbortController();
      setTimeout(() => stop.abort(), 5 + (i % 8) * 6);
      const result = await host.call('spawn_loop', { seconds }, { signal: stop.signal });
      assert.ok(['cancelled', 'error'].includes(result.status), `${result.status}: ${result.content}`);
    }
    const left = (): string[] => rounds.flatMap((seconds) => liveProcesses(`sleep ${seconds}`));
    assert.ok(await eventually(() => left().length === 0), left().join('\n'));
  },
);

test(
  `${200} workers started and ended every way leave every start-gate place free: a burst of first calls after still all run`,
  { timeout: 240_000 },
  async () => {
    const slowFile = join(tempDir(), 'slow');
    const config = toolsConfig(slowFile);
    const options = {
      maxThreadsPerModule: 2,
      loadTimeoutMs: 300,
      timeoutMs: 300,
      idleTimeoutMs: 20,
      memoryLimitBytes: 16 * 1024 * 1024,
    };
    const host = await startHost(config, options);
    const many = await startHost(manyModulesConfig(40), { maxThreadsPerModule: 1 });
    const first = gateEntries;
    let kills = 0;
    const ways: (() => Promise<unknown>)[] = [
      // Cancelled while its worker starts.
      () =>
        Promise.all(
          [0, 1].map(() => {
            const stop = new AbortController();
            setTimeout(() => stop.abort(), Math.random() * 30);
            return host.call('echo', { text: 'x' }, { signal: stop.signal });
          }),
        ),
      // Timed out running; then left idle until reaped.
      () => host.call('spin', {}).then(() => new Promise((resolve) => setTimeout(resolve, 60))),
      // Timed out while loading the config.
      async () => {
        writeFileSync(slowFile, '');
        await host.call('echo', { text: 'x' });
        rmSync(slowFile);
      },
      // Retired after running out of memory.
      () => host.call('hoard', {}),
      // Killed from outside (a crash), once per module of `many`.
      async () => {
        const module = (kills++ % 40) + 1;
        const pending = many.call(`t${module}`, { text: 'x' });
        const threads = (): { terminate(): Promise<number> }[] =>
          many.moduleThreads(Object.keys(many.stats().modules).find((name) => name.endsWith(`m${module}.lua`)) ?? '');
        await eventually(() => threads().length > 0, 5000);
        for (const thread of threads()) void thread.terminate();
        await pending;
      },
      // Cancelled while waiting at the gate behind other starts.
      () => {
        const stop = new AbortController();
        const pending = Promise.all(
          [1, 2, 3, 4, 5, 6].map((i) =>
            many.call(`t${((gateEntries + i * 7) % 40) + 1}`, { text: 'x' }, { signal: stop.signal }),
          ),
        );
        setTimeout(() => stop.abort(), 10);
        return pending;
      },
      // A whole host closed while its workers start.
      async () => {
        const closing = await ToolHost.start({ config, stateDir: tempDir(), ...options });
        const pending = closing.call('echo', { text: 'x' });
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
        await closing.close();
        await pending;
      },
    ];
    for (let i = 0; gateEntries - first < 200; i++) await ways[i % ways.length]!();
    assert.ok(
      await eventually(() => gatePlaces().taken === 0 && gatePlaces().waiting === 0),
      JSON.stringify(gatePlaces()),
    );
    await assertDrained(host, moduleOf(config), 'none');
    const burst = await startHost(manyModulesConfig(3 * WORKER_START_SLOTS), { maxThreadsPerModule: 1 });
    const results = await Promise.all(
      Array.from({ length: 3 * WORKER_START_SLOTS }, (_, i) => burst.call(`t${i + 1}`, { text: 'burst' })),
    );
    results.forEach((result, i) => assert.deepEqual([result.status, result.content], ['ok', `t${i + 1} burst`]));
    assert.ok(await eventually(() => gatePlaces().taken === 0), JSON.stringify(gatePlaces()));
  },
);

test(
  'maxQueue counts the calls waiting for a busy worker, not those whose worker is starting: a cold pool takes as many calls as a warm one',
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 2, maxQueuePerModule: 1 });
    const burst = (): Promise<CallResult[]> =>
      Promise.all([1, 2, 3, 4].map(() => host.call('nap', { seconds: '0.2' })));
    const cold = await burst();
    const warm = await burst();
    assert.deepEqual(
      cold.map((result) => result.status),
      warm.map((result) => result.status),
    );
    assert.deepEqual(statuses(cold), { ok: 3, busy: 1 });
  },
);

test('a reply handed over by a retiring worker after its call timed out is not kept', { timeout: 60_000 }, async () => {
  const config = toolsConfig();
  const host = await startHost(config, { maxThreadsPerModule: 1, memoryLimitBytes: 16 * 1024 * 1024, timeoutMs: 300 });
  for (let round = 0; round < 3; round++) {
    await host.call('echo', { text: 'a warm worker' });
    const pending = host.call('hoard', {});
    // The host's thread is busy while the worker runs out of memory and hands its reply over: on
    // the next turn of the event loop the deadline sweep (a timer) comes before the handed-over
    // reply (a message).
    setImmediate(() => {
      const until = Date.now() + 1000;
      while (Date.now() < until);
    });
    assert.ok(['timeout', 'error'].includes((await pending).status));
  }
  await assertDrained(host, moduleOf(config));
});

test(
  'a render view a worker cannot be sent fails that render alone: more of them than inspect workers leave render working',
  { timeout: 60_000 },
  async () => {
    const host = await startHost('snapshots');
    const state = encodeMsgpack({ phase: 'p', rows: [] });
    const view = { width: 60, height: 10, expand: false };
    for (let i = 0; i < 6; i++) {
      const refused = await host.render('spin_showing', state, { ...view, onResize: () => undefined } as typeof view);
      assert.equal(refused.ok, false);
      assert.match(refused.ok ? '' : (refused.reason ?? ''), /render could not run: .*could not be cloned/);
    }
    assert.deepEqual(await host.render('spin_showing', state, view), { ok: true, lines: ['p at width 60'] });
  },
);

for (const pool of ['cold', 'warm'] as const) {
  test(
    `arguments a worker cannot be sent (a function) fail that call alone, on a ${pool} pool: the host lives and the next call runs`,
    { timeout: 60_000 },
    async () => {
      const config = toolsConfig();
      const host = await startHost(config, { maxThreadsPerModule: 1 });
      if (pool === 'warm') await host.call('echo', { text: 'warm' });
      const refused = await host.call('echo', { text: 'x', callback: () => 1 });
      assert.equal(refused.status, 'error');
      assert.match(refused.content, /could not be cloned/);
      // The worker started for it, left without a task, holds no place at the start gate.
      assert.ok(await eventually(() => gatePlaces().taken === 0), JSON.stringify(gatePlaces()));
      const [queued, unsendable] = await Promise.all([
        host.call('nap', { seconds: '0.1' }),
        host.call('echo', { text: 'x', callback: () => 1 }),
      ]);
      assert.deepEqual([queued.status, unsendable.status], ['ok', 'error']);
      const result = await host.call('echo', { text: 'next' });
      assert.deepEqual([result.status, result.content], ['ok', 'next']);
      await assertDrained(host, moduleOf(config));
      assert.equal(host.stats().modules[moduleOf(config)]!.crashes, 0);
    },
  );
}

test(
  'a worker stuck in a system call while it loads its own code (its file a FIFO, as on a hung mount) times its call out and gives back its start-gate place',
  { timeout: 60_000 },
  async () => {
    const { install, ToolHost: CopiedHost } = await copiedInstall();
    const host = await CopiedHost.start({
      config: toolsConfig(),
      stateDir: tempDir(),
      maxThreadsPerModule: 1,
      loadTimeoutMs: 5000,
      timeoutMs: 5000,
    });
    after(() => host.close());
    const entry = join(install, 'dist', 'workers', 'lua-worker-entry.cjs');
    renameSync(entry, `${entry}.away`);
    execFileSync('mkfifo', [entry]);
    const unblock = (): void => {
      // A writer that opens and closes gives the reader its end of file: the stuck thread goes on, and exits.
      try {
        closeSync(openSync(entry, constants.O_WRONLY | constants.O_NONBLOCK));
      } catch {
        // No reader left.
      }
    };
    after(unblock);
    const stuck = await host.call('echo', { text: 'x' });
    assert.equal(stuck.status, 'timeout', stuck.content);
    assert.ok(await eventually(() => gatePlaces().taken === 0), JSON.stringify(gatePlaces()));
    assert.ok(await eventually(() => host.stats().stuckThreads === 1, 15_000));
    unblock();
    rmSync(entry);
    renameSync(`${entry}.away`, entry);
    const result = await host.call('echo', { text: 'back' });
    assert.deepEqual([result.status, result.content], ['ok', 'back']);
    assert.ok(await eventually(() => host.stats().stuckThreads === 0));
  },
);

test(
  'an idle timeout longer than a timer can wait (about 25 days) keeps its idle worker without waking every millisecond',
  { timeout: 60_000 },
  async () => {
    let overflows = 0;
    const onWarning = (warning: Error): void => {
      if (warning.name === 'TimeoutOverflowWarning') overflows++;
    };
    process.on('warning', onWarning);
    after(() => process.off('warning', onWarning));
    const config = toolsConfig();
    const host = await startHost(config, { idleTimeoutMs: 30 * 24 * 3600 * 1000 });
    assert.equal((await host.call('echo', { text: 'x' })).content, 'x');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(overflows, 0);
    assert.equal(host.stats().modules[moduleOf(config)]!.alive, 1);
  },
);

test(
  "a caller's signal that throws when read, listened to or let go of fails or finishes its own call alone, and leaves the pool whole",
  { timeout: 60_000 },
  async () => {
    const config = toolsConfig();
    const host = await startHost(config, { maxThreadsPerModule: 1, maxQueuePerModule: 8 });
    const refuses = (method: 'aborted' | 'addEventListener' | 'removeEventListener'): AbortSignal => {
      const signal = {
        aborted: false,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
      };
      Object.defineProperty(signal, method, {
        get: () => {
          throw new Error(`this signal refuses ${method}`);
        },
      });
      return signal as unknown as AbortSignal;
    };
    // More calls than the pool has rows: a row kept by any of them would leave the last ones busy.
    for (let i = 0; i < 12; i++) {
      const unread = await host.call('echo', { text: 'a' }, { signal: refuses('aborted') });
      assert.equal(unread.status, 'error', unread.content);
      assert.match(unread.content, /moonpool failed to run the call: this signal refuses aborted/);
      const unheard = await host.call('echo', { text: 'b' }, { signal: refuses('addEventListener') });
      assert.match(unheard.content, /this signal refuses addEventListener/);
      const kept = await host.call('echo', { text: `c${i}` }, { signal: refuses('removeEventListener') });
      assert.equal(kept.content, `c${i}`);
    }
    await assertDrained(host, moduleOf(config));
  },
);
