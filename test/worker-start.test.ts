// A worker whose code cannot load (an install with a file missing) fails the calls waiting for it
// with the reason, instead of the pool starting workers forever at full CPU.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT, tempDir } from './helpers.js';

test('a missing worker file ends the command with its reason, not a spin', { timeout: 60_000 }, () => {
  const install = tempDir();
  cpSync(join(ROOT, 'dist'), join(install, 'dist'), { recursive: true });
  rmSync(join(install, 'dist', 'workers', 'lua-worker-entry.cjs'));
  for (const name of ['workers', 'node_modules', 'package.json']) symlinkSync(join(ROOT, name), join(install, name));
  const run = spawnSync(
    process.execPath,
    [join(install, 'dist', 'ui', 'cli.js'), 'list', '--config', join(FIXTURES, 'snapshots')],
    { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' },
  );
  assert.equal(run.status, 2, `${run.signal ?? ''} ${run.stderr}`);
  assert.match(run.stderr, /a worker could not start: .*lua-worker-entry\.cjs/);
});
