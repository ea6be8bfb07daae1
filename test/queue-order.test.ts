// Calls behind a busy module start in the order they were made, as library.md says ("a call waits
// in order in the pool's queue") and as `onQueued`'s place promises (1 being next). With one worker,
// the order the calls finish in is the order they started in.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, startHost, tempDir } from './helpers.js';

const CONFIG = `
local function exists(path) local file = io.open(path) if file then file:close() end return file ~= nil end
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'turn',
    description = 'Waits until its gate file exists, then answers with its number.',
    parameters = { type = 'object', properties = { n = { type = 'integer' }, gate = { type = 'string' } }, required = { 'n', 'gate' } },
    run = function(args)
      print('running')
      while not exists(args.gate) do capture('sleep 0.02') end
      return tostring(args.n)
    end,
  }
end)
`;

test('seven calls behind a one-worker module start in the order they were made', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), CONFIG);
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 1 });
  const gate = join(dir, 'gate');
  let firstRunning = false;
  const finished: string[] = [];
  const first = host.call('turn', { n: 0, gate }, { onLog: () => (firstRunning = true) });
  assert.ok(await eventually(() => firstRunning, 30_000));
  const queued = [1, 2, 3, 4, 5, 6, 7].map((n) =>
    host.call('turn', { n, gate }).then((result) => finished.push(result.content)),
  );
  writeFileSync(gate, '');
  await Promise.all([first, ...queued]);
  assert.deepEqual(finished, ['1', '2', '3', '4', '5', '6', '7']);
});
