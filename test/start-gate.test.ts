// Workers start a few at a time (StartGate, core/worker-pool.ts): a call waiting for its worker's turn to
// start is not yet on the clock, can be cancelled while it waits, and starts in its turn.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { StartGate, WORKER_START_SLOTS } from '../core/worker-pool.js';
import { eventually, liveProcesses, startHost, tempDir, uniqueSeconds } from './helpers.js';

/**
 * A config of `count` modules (`tool_1` …). Once `slowLoads()` is called, each worker loading it
 * waits `loadSeconds` on a command first (the host's own load, before that, is quick). The seconds
 * are written as given: a number would print `600.1234` for `600.12340`, which `ps` is searched for.
 */
function slowLoadingModules(
  count: number,
  loadSeconds: string,
  timeoutSeconds = 0.1,
): { config: string; names: string[]; slowLoads: () => void } {
  const dir = tempDir();
  mkdirSync(join(dir, 'tools'));
  const names = Array.from({ length: count }, (_, index) => `tool_${index + 1}`);
  for (const name of names) {
    writeFileSync(
      join(dir, 'tools', `${name}.lua`),
      `return function(registry)\n  registry:add { name = '${name}', description = 'Returns ok.', timeout = ${timeoutSeconds}, run = function() return 'ok' end }\nend\n`,
    );
  }
  const marker = join(dir, 'slow');
  const requires = names.map((name) => `  require('tools.${name}')(registry)`).join('\n');
  writeFileSync(
    join(dir, 'init.lua'),
    `if io.open(${JSON.stringify(marker)}) then os.execute('sleep ${loadSeconds}') end\nagent.on('discover_tools', function(registry)\n${requires}\nend)\n`,
  );
  return { config: join(dir, 'init.lua'), names, slowLoads: () => writeFileSync(marker, '') };
}

test('the start gate admits its slots at once and the rest in the order they asked', async () => {
  const gate = new StartGate(2);
  const order: number[] = [];
  const entries = [1, 2, 3, 4].map((id) => ({ id, entry: gate.enter(new AbortController().signal) }));
  for (const { id, entry } of entries) void entry.then((admitted) => admitted && order.push(id));
  await Promise.resolve();
  assert.deepEqual(order, [1, 2]);
  assert.deepEqual([gate.taken, gate.queued], [2, 2]);
  gate.leave();
  await entries[2]!.entry;
  assert.deepEqual(order, [1, 2, 3]);
  gate.leave();
  await entries[3]!.entry;
  assert.deepEqual(order, [1, 2, 3, 4]);
  assert.deepEqual([gate.taken, gate.queued], [2, 0]);
});

test('a start withdrawn while it waits is answered false and its turn goes to the next', async () => {
  const gate = new StartGate(1);
  assert.equal(await gate.enter(new AbortController().signal), true);
  const withdrawing = new AbortController();
  const withdrawn = gate.enter(withdrawing.signal);
  const next = gate.enter(new AbortController().signal);
  withdrawing.abort();
  assert.equal(await withdrawn, false);
  gate.leave();
  assert.equal(await next, true);
});

test('calls that wait for their worker to start are not timed while they wait', async () => {
  // Three waves of starts, each loading for 5 s: the last wave waits at least 10 s, past its 4 s
  // call timeout, and with its own load past the 10 s load allowance — unless waiting is free. The
  // margins (5 s for a worker's start beside its load, 4 s for a call that returns at once) hold on
  // a machine running two test suites beside this one.
  const { config, names, slowLoads } = slowLoadingModules(3 * WORKER_START_SLOTS, '5', 4);
  const host = await startHost(config, { loadTimeoutMs: 10_000 });
  slowLoads();
  const results = await Promise.all(names.map((name) => host.call(name, {})));
  assert.deepEqual(
    results.map((result) => `${result.tool} ${result.status}`),
    names.map((name) => `${name} ok`),
  );
});

test(
  'a call waiting for its worker to start is cancelled at once, while every place is taken',
  { timeout: 20_000 },
  async () => {
    const seconds = uniqueSeconds();
    const { config, names, slowLoads } = slowLoadingModules(WORKER_START_SLOTS + 1, seconds);
    const host = await startHost(config, { loadTimeoutMs: 600_000 });
    slowLoads();
    const starting = names.slice(0, WORKER_START_SLOTS).map((name) => host.call(name, {}));
    // Every place is taken: each of these workers waits in its load (a shell, and its sleep).
    const sleeping = (): number =>
      liveProcesses(`sleep ${seconds}`).filter((line) => /^\S+\s+sleep /.test(line.trim())).length;
    assert.ok(await eventually(() => sleeping() === WORKER_START_SLOTS), liveProcesses(`sleep ${seconds}`).join('\n'));
    const controller = new AbortController();
    const waiting = host.call(names.at(-1)!, {}, { signal: controller.signal });
    controller.abort();
    assert.equal((await waiting).status, 'cancelled');
    await host.close();
    assert.deepEqual(
      (await Promise.all(starting)).map((call) => call.status),
      starting.map(() => 'cancelled'),
    );
    assert.ok(
      await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
      liveProcesses(`sleep ${seconds}`).join('\n'),
    );
  },
);
