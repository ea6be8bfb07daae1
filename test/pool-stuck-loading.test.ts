// A worker thread that blocks in a system call while it loads its code's dependencies (their
// files on a hung mount; a FIFO stands in for one) must be treated as one that never came up: its
// call times out, the thread counts as stuck, and a reload gives the module a whole pool again.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  constants,
  cpSync,
  mkdirSync,
  openSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { copiedInstall } from './copied-install.js';
import { eventually, ROOT, tempDir } from './helpers.js';

test(
  'a worker stuck loading a dependency after it started counts as stuck, and a reload gives the module new workers',
  { timeout: 90_000 },
  async () => {
    const { install, ToolHost: CopiedHost } = await copiedInstall();
    const dir = tempDir();
    writeFileSync(
      join(dir, 'init.lua'),
      "agent.on('discover_tools', function(registry) registry:add { name = 'echo', description = 'x', run = function(args) return args.text end } end)\n",
    );
    const host = await CopiedHost.start({
      config: join(dir, 'init.lua'),
      stateDir: tempDir(),
      maxThreadsPerModule: 1,
      loadTimeoutMs: 5000,
      timeoutMs: 5000,
    });
    after(() => host.close());
    // The host has loaded; from now on a worker that starts finds wasmoon's code unreadable.
    const wasmoon = join(install, 'node_modules', 'wasmoon');
    unlinkSync(wasmoon);
    mkdirSync(join(wasmoon, 'dist'), { recursive: true });
    cpSync(join(ROOT, 'node_modules', 'wasmoon', 'package.json'), join(wasmoon, 'package.json'));
    const fifo = join(wasmoon, 'dist', 'index.js');
    execFileSync('mkfifo', [fifo]);
    const stuckFifo = join(install, 'wasmoon-stuck', 'dist', 'index.js');
    // A writer that opens and closes gives the stuck reader its end of file, so the thread can end.
    const unblock = (): void => {
      for (const path of [fifo, stuckFifo]) {
        try {
          closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // Not there, or no reader left.
        }
      }
    };
    try {
      const stuck = await host.call('echo', { text: 'x' });
      assert.equal(stuck.status, 'timeout', stuck.content);
      assert.ok(
        await eventually(() => host.stats().stuckThreads === 1, 15_000),
        `stuckThreads ${host.stats().stuckThreads}`,
      );
      // New opens of the mount work again; the one stuck stays stuck.
      renameSync(wasmoon, join(install, 'wasmoon-stuck'));
      symlinkSync(join(ROOT, 'node_modules', 'wasmoon'), wasmoon);
      // piscina keeps a thread that never came up as one of the pool's threads (docs/decisions/
      // 0028-pools-on-piscina.md): the module's pool is whole again with the next generation's.
      assert.equal((await host.reload()).ok, true);
      const result = await host.call('echo', { text: 'back' });
      assert.deepEqual([result.status, result.content], ['ok', 'back']);
    } finally {
      unblock();
    }
  },
);
