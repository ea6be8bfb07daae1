// warmModuleWorker (the CLI's `call` sets it): a module worker starts while the config loads and
// serves the first module called; it has run nothing before, so that module has it to itself.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, startHost, tempDir } from './helpers.js';

test('the warmed worker serves the first module called, and the next module gets a worker of its own', async () => {
  const host = await startHost('warm-worker', { warmModuleWorker: true });
  assert.equal((await host.call('second', {})).content, 'nil');
  assert.equal((await host.call('first', {})).content, 'nil');
  assert.equal((await host.call('second', {})).content, 'second');
  assert.equal((await host.call('first', {})).content, 'first');
  assert.deepEqual(Object.keys(host.stats().modules).length, 2);
});

test('the first call takes the warmed worker, however far along its start is: no second worker is started for it', async () => {
  for (let round = 0; round < 3; round++) {
    const host = await startHost('warm-worker', { warmModuleWorker: true });
    assert.equal((await host.call('first', {})).content, 'nil');
    assert.deepEqual(
      Object.values(host.stats().modules).map((pool) => pool.alive),
      [1],
    );
    await host.close();
  }
});

test('a host whose config fails to load closes its warmed worker', async () => {
  const dir = tempDir();
  const config = join(dir, 'init.lua');
  writeFileSync(config, 'error("broken at load")\n');
  const broken = await startHost(config, { warmModuleWorker: true });
  assert.equal(broken.loaded, false);
  await broken.close();
  assert.equal(broken.stats().stuckThreads, 0);
});

test('`moonpool call` on a config that fails to load exits at once, its warmed worker gone with it', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), 'error("broken at load")\n');
  const call = spawnSync(
    process.execPath,
    [CLI, 'call', 'anything', '--config', join(dir, 'init.lua'), '--state-dir', join(dir, 'state')],
    { encoding: 'utf8', timeout: 30_000 },
  );
  assert.equal(call.status, 2, call.stderr);
  assert.match(call.stderr, /broken at load/);
});
