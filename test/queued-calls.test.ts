// A call that must wait before a worker takes it says so: `onQueued` with its place in line (again
// as the place changes), then `onStart` once a worker has it. A call that never waits hears
// neither. The wait may be for a busy module (every worker has a call) or for the process's
// worker starts (at most availableParallelism() + 2 at once). Calls start in the order they were
// made, and a reload does not make the calls still running or waiting vanish from `stats()`.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CallOptions } from '../core/index.js';
import { eventually, startHost, tempDir } from './helpers.js';

const EXISTS = `local function exists(path) local file = io.open(path) if file then file:close() end return file ~= nil end`;

const WAITER = `
${EXISTS}
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'wait',
    description = 'Prints that it runs, then waits until its gate file exists.',
    parameters = { type = 'object', properties = { gate = { type = 'string' } }, required = { 'gate' } },
    run = function(args)
      print('running')
      while not exists(args.gate) do capture('sleep 0.02') end
      return 'through'
    end,
  }
end)
`;

/** The queue events a call hears, and whether it has printed that it runs. */
function watchedCall(): { events: string[]; running: () => boolean; options: CallOptions } {
  const events: string[] = [];
  let printed = false;
  return {
    events,
    running: () => printed,
    options: {
      onQueued: (place) => events.push(`queued ${place}`),
      onStart: () => events.push('start'),
      onLog: () => (printed = true),
    },
  };
}

test('calls behind a busy module hear their place in line as it moves, then that they start', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), WAITER);
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 1 });
  const gates = ['a', 'b', 'c'].map((name) => join(dir, `gate-${name}`));
  const [a, b, c] = [watchedCall(), watchedCall(), watchedCall()];
  const first = host.call('wait', { gate: gates[0] }, a.options);
  assert.ok(await eventually(a.running, 30_000));
  const second = host.call('wait', { gate: gates[1] }, b.options);
  const third = host.call('wait', { gate: gates[2] }, c.options);
  assert.ok(await eventually(() => c.events.length > 0));
  assert.deepEqual([b.events, c.events], [['queued 1'], ['queued 2']]);
  writeFileSync(gates[0]!, '');
  assert.ok(await eventually(() => b.running() && b.events.includes('start'), 30_000), JSON.stringify(b.events));
  assert.deepEqual(c.events, ['queued 2', 'queued 1']);
  writeFileSync(gates[1]!, '');
  assert.ok(await eventually(() => c.running() && c.events.includes('start'), 30_000), JSON.stringify(c.events));
  writeFileSync(gates[2]!, '');
  const results = await Promise.all([first, second, third]);
  assert.deepEqual(
    results.map(({ status, content }) => [status, content]),
    Array(3).fill(['ok', 'through']),
  );
  assert.deepEqual([a.events, b.events, c.events], [[], ['queued 1', 'start'], ['queued 2', 'queued 1', 'start']]);
});

test('calls made together on a cold module: those beyond its workers are queued, then start', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), WAITER);
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 2 });
  const gate = join(dir, 'gate');
  const calls = [watchedCall(), watchedCall(), watchedCall()];
  const results = calls.map(({ options }) => host.call('wait', { gate }, options));
  assert.ok(await eventually(() => calls.filter(({ running }) => running()).length === 2, 30_000));
  assert.deepEqual(
    calls.map(({ events }) => events),
    [[], [], ['queued 1']],
  );
  writeFileSync(gate, '');
  assert.deepEqual(
    (await Promise.all(results)).map(({ status }) => status),
    ['ok', 'ok', 'ok'],
  );
  assert.deepEqual(
    calls.map(({ events }) => events),
    [[], [], ['queued 1', 'start']],
  );
});

test('calls waiting for a worker start beyond the process-wide limit are queued, then start', async () => {
  const dir = tempDir();
  const hold = join(dir, 'hold');
  const release = join(dir, 'release');
  const modules = availableParallelism() + 4;
  // While the hold file exists, a worker's load of the config waits: its start keeps its place at the gate.
  const lines = [EXISTS, `while exists('${hold}') do capture('sleep 0.02') end`];
  for (let i = 0; i < modules; i++) {
    const run = `function() while not exists('${release}') do capture('sleep 0.02') end return 'm${i}' end`;
    writeFileSync(
      join(dir, `m${i}.lua`),
      `${EXISTS}\nreturn function(registry) registry:add { name = 'm${i}', description = 'Module ${i}.', run = ${run} } end\n`,
    );
    lines.push(`agent.on('discover_tools', require('m${i}'))`);
  }
  writeFileSync(join(dir, 'init.lua'), lines.join('\n'));
  const host = await startHost(join(dir, 'init.lua'), { loadTimeoutMs: 600_000 });
  writeFileSync(hold, '');
  const calls = Array.from({ length: modules }, (_, i) => ({ name: `m${i}`, ...watchedCall() }));
  const results = calls.map(({ name, options }) => host.call(name, {}, options));
  const queued = (): typeof calls => calls.filter(({ events }) => events.length > 0);
  // Two more calls than the gate's places: at least two wait.
  assert.ok(await eventually(() => queued().length >= 2, 30_000), `${queued().length} queued`);
  rmSync(hold);
  assert.ok(
    await eventually(() => queued().every(({ events }) => events.includes('start')), 60_000),
    JSON.stringify(queued().map(({ events }) => events)),
  );
  writeFileSync(release, '');
  assert.deepEqual(
    (await Promise.all(results)).map(({ status, content }) => [status, content]),
    calls.map(({ name }) => ['ok', name]),
  );
  for (const { events } of queued()) assert.deepEqual(events, ['queued 1', 'start']);
});

test('seven calls behind a one-worker module start in the order they were made', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), WAITER);
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 1 });
  const gate = join(dir, 'gate');
  let firstRunning = false;
  const started: number[] = [];
  const first = host.call('wait', { gate }, { onLog: () => (firstRunning = true) });
  assert.ok(await eventually(() => firstRunning, 30_000));
  const queued = [1, 2, 3, 4, 5, 6, 7].map((n) => host.call('wait', { gate }, { onLog: () => started.push(n) }));
  writeFileSync(gate, '');
  await Promise.all([first, ...queued]);
  assert.deepEqual(started, [1, 2, 3, 4, 5, 6, 7]);
});

test('calls running and waiting before a reload are still counted by stats() after it', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), WAITER);
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 1 });
  const gate = join(dir, 'gate');
  let running = false;
  const calls = [host.call('wait', { gate }, { onLog: () => (running = true) })];
  assert.ok(await eventually(() => running, 30_000));
  calls.push(host.call('wait', { gate }), host.call('wait', { gate }));
  const counted = (): number =>
    Object.values(host.stats().modules).reduce((sum, module) => sum + module.busy + module.queued, 0);
  assert.ok(await eventually(() => counted() === 3), JSON.stringify(host.stats().modules));
  const reload = await host.reload();
  assert.equal(reload.ok, true);
  const after = counted();
  writeFileSync(gate, '');
  const results = await Promise.all(calls);
  assert.deepEqual(
    results.map((result) => result.content),
    ['through', 'through', 'through'],
  );
  assert.equal(after, 3, 'busy + queued over every module right after the reload');
});

test('a burst of 3,000 calls past the default queue: each is answered, told its place once it waits, and only moves up', async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'init.lua'),
    `agent.on('discover_tools', function(registry)
  registry:add { name = 'quick', description = 'Answers its number.', run = function(args) return tostring(args.n) end }
end)
`,
  );
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 1, maxQueuePerModule: 5_000 });
  assert.equal((await host.call('quick', { n: -1 })).content, '-1');
  const calls = Array.from({ length: 3_000 }, () => watchedCall());
  const results = await Promise.all(calls.map(({ options }, n) => host.call('quick', { n }, options)));
  results.forEach((result, n) => assert.deepEqual([result.status, result.content], ['ok', String(n)]));
  let queued = 0;
  for (const { events } of calls) {
    if (events.length === 0) continue;
    queued++;
    const places = events.slice(0, -1).map((event) => Number(event.replace('queued ', '')));
    assert.equal(events.at(-1), 'start', events.join(', '));
    assert.ok(
      places.length > 0 && places.every((place, i) => place >= 1 && (i === 0 || place < places[i - 1]!)),
      events.join(', '),
    );
  }
  // One worker: all but the first call waited.
  assert.ok(queued >= 2_998, `${queued} calls heard that they waited`);
});
