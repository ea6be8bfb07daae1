// `stats().modules` counts the calls workers have (`busy`) and those waiting (`queued`), as
// library.md says. A reload while calls run or wait must not make them vanish from the counts:
// they go on, on the generation they started on, and the dashboard's status bar reads these figures.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, startHost, tempDir } from './helpers.js';

const CONFIG = `
local function exists(path) local file = io.open(path) if file then file:close() end return file ~= nil end
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'wait',
    description = 'Waits until its gate file exists.',
    parameters = { type = 'object', properties = { gate = { type = 'string' } }, required = { 'gate' } },
    run = function(args)
      print('running')
      while not exists(args.gate) do capture('sleep 0.02') end
      return 'through'
    end,
  }
end)
`;

test('calls running and waiting before a reload are still counted by stats() after it', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), CONFIG);
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
