// Many calls may share one caller's AbortSignal (a session's, say): moonpool listens to it once,
// so Node warns of no listener leak, and aborting it still cancels every call in flight.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, startHost, tempDir } from './helpers.js';

test('twenty calls sharing one signal raise no MaxListeners warning, and its abort cancels them all', async () => {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'init.lua'),
    "agent.on('discover_tools', function(registry) registry:add { name = 'spin', description = 'Spins.', " +
      "run = function() print('spinning') while true do end end } end)\n",
  );
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 2 });
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => void warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  try {
    const shared = new AbortController();
    let running = 0;
    const calls = Array.from({ length: 20 }, () =>
      host.call('spin', {}, { signal: shared.signal, onLog: () => void running++ }),
    );
    // Two running, the rest queued: every call listens meanwhile.
    assert.ok(await eventually(() => running === 2));
    shared.abort();
    const results = await Promise.all(calls);
    assert.deepEqual(new Set(results.map((result) => result.status)), new Set(['cancelled']));
    // Node emits its warning on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});
