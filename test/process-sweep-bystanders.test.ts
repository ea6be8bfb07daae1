// The end-of-call sweep looks at /proc again while a scan saw processes changing (see
// shared/process-sweep.ts), but a bystander that only stays as it is — a zombie nobody reaps, a
// process started with no environment — is looked at again once, not on every pass: else every
// sweep took all 16 passes (17 scans of /proc, a 1 ms pause each) on a machine with such a process.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';

// Counts the sweep's listings of /proc (one per scan): process-sweep.js imports readdirSync from
// node:fs, whose ESM bindings follow the CommonJS module's after syncBuiltinESMExports().
const fs = createRequire(import.meta.url)('node:fs') as { readdirSync: unknown };
const readdir = fs.readdirSync;
let scans = 0;
fs.readdirSync = function (this: unknown, path: unknown, ...rest: unknown[]) {
  if (path === '/proc') scans++;
  return (readdir as (...args: unknown[]) => unknown).call(this, path, ...rest);
};
syncBuiltinESMExports();
const { sweepTaskProcesses } = await import('../shared/process-sweep.js');

/** The fewest scans of /proc any of 5 sweeps of a task that started nothing took (churn elsewhere only adds). */
function fewestScans(): { scans: number; ms: number } {
  let fewest = Infinity;
  let ms = Infinity;
  for (let i = 0; i < 5; i++) {
    scans = 0;
    const began = performance.now();
    sweepTaskProcesses(`review.${process.pid}.none`, [], Date.now() - 2000);
    fewest = Math.min(fewest, scans);
    ms = Math.min(ms, performance.now() - began);
  }
  return { scans: fewest, ms };
}

function state(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), 'the bystander process took shape');
}

test('an unrelated zombie on the machine does not make every sweep take all 16 passes', async () => {
  // A bystander: a perl whose child has ended and that does not reap it until its stdin closes.
  const parent: ChildProcess = spawn(
    '/usr/bin/perl',
    ['-e', '$| = 1; my $pid = fork(); if ($pid == 0) { exit 0 } print "$pid\\n"; <STDIN>; waitpid($pid, 0);'],
    { stdio: ['pipe', 'pipe', 'ignore'] },
  );
  try {
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout!.once('data', (data: Buffer) => resolve(Number(String(data).trim()))),
    );
    await until(() => state(zombie) === 'Z');
    const { scans: fewest, ms } = fewestScans();
    assert.ok(
      fewest <= 3,
      `the fewest scans of /proc in 5 sweeps was ${fewest} (${ms.toFixed(1)} ms), for a zombie that is not the task's`,
    );
  } finally {
    parent.stdin!.end();
    parent.kill('SIGKILL');
  }
});

test('an unrelated process with an empty environment does not make every sweep take all 16 passes', async () => {
  // Its parent (this test's process) must be older than the sweep's window, as a user's shell is.
  while (process.uptime() < 3.5) await new Promise((resolve) => setTimeout(resolve, 100));
  const bystander = spawn('/bin/sleep', ['30'], { env: {}, stdio: 'ignore' });
  try {
    await until(() => state(bystander.pid!) === 'S' && readFileSync(`/proc/${bystander.pid}/environ`).length === 0);
    const { scans: fewest, ms } = fewestScans();
    assert.ok(
      fewest <= 3,
      `the fewest scans of /proc in 5 sweeps was ${fewest} (${ms.toFixed(1)} ms), for an \`env -i\` process that is not the task's`,
    );
  } finally {
    bystander.kill('SIGKILL');
  }
});
