// Faults inside Lua stay inside their call: an endless loop is stopped at its timeout, a memory
// bomb is an out-of-memory error whose worker gives its memory back, and the host keeps serving.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHost, tempDir } from './helpers.js';

const MEMORY_LIMIT_BYTES = 32 * 1024 * 1024;

test('while true do end is stopped at the tool timeout and the next call still works', async () => {
  const host = await startHost('faults');
  const result = await host.call('spin', {});
  assert.equal(result.status, 'timeout');
  assert.match(result.content, /spin: timed out after 0\.5 s/);
  assert.equal((await host.call('echo', { text: 'still here' })).content, 'still here');
});

test('a timeout under a tenth of a second is said as it is, not as 0.0 s', async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'init.lua'),
    "agent.on('discover_tools', function(registry) registry:add { name = 'spin', description = 'Spins.', " +
      'timeout = 0.04, run = function() while true do end end } end)\n',
  );
  const host = await startHost(join(dir, 'init.lua'));
  const result = await host.call('spin', {});
  assert.equal(result.content, 'spin: timed out after 0.04 s (set `timeout` in registry:add to allow longer)');
});

test('a memory bomb is an out-of-memory error, the host RSS comes back, and the module keeps working', async () => {
  const host = await startHost('faults', { memoryLimitBytes: MEMORY_LIMIT_BYTES, maxThreadsPerModule: 1 });
  await host.call('echo', { text: 'warm' });
  const baseline = process.memoryUsage().rss;
  for (let i = 0; i < 3; i++) {
    const result = await host.call('hoard', {});
    assert.equal(result.status, 'error');
    assert.equal(result.content, 'hoard: out of memory (the Lua heap is capped at 32 MiB)');
  }
  const grown = process.memoryUsage().rss - baseline;
  assert.ok(grown < 2 * MEMORY_LIMIT_BYTES, `RSS grew by ${Math.round(grown / 1048576)} MiB after three memory bombs`);
  assert.equal((await host.call('echo', { text: 'after' })).content, 'after');
  assert.equal(host.stats().modules[Object.keys(host.stats().modules)[0]!]!.crashes, 0);
});

test('host.close() with a call in flight resolves it as cancelled', async () => {
  const host = await startHost('faults');
  const pending = host.call('spin', {});
  await new Promise((resolve) => setTimeout(resolve, 100));
  await host.close();
  const result = await pending;
  assert.equal(result.status, 'cancelled');
});
