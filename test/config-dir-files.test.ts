// Odd files in the config directory are skipped with a warning, never fatal and never waited on:
// an editor's dangling lock symlink, a FIFO, a socket and a symlink loop named `*.lua`, and a
// subdirectory that cannot be listed. The tools beside them load and answer, `reload()` resolves
// to `{ ok, diagnostics }`, and a config file that is itself a FIFO fails the load at once.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, FIXTURES, permissionsEnforced, startHost, tempDir } from './helpers.js';

/** A copy of the spill-faults config with every kind of odd entry beside its files. */
function oddConfig(): string {
  const dir = tempDir();
  cpSync(join(FIXTURES, 'spill-faults', 'init.lua'), join(dir, 'init.lua'));
  symlinkSync('root@host.4242:1764547200', join(dir, '.#init.lua'));
  symlinkSync('loop.lua', join(dir, 'loop.lua'));
  mkdirSync(join(dir, 'lua'));
  execFileSync('mkfifo', [join(dir, 'lua', 'pipe.lua')]);
  makeSocket(join(dir, 'lua'), 'socket.lua');
  return dir;
}

/**
 * A Unix socket file named `name` in `dir`, left behind by a process that bound it and exited. It is
 * bound by a name relative to the process's directory: a socket's whole path must fit in 107 bytes,
 * which a long TMPDIR (macOS's /var/folders/…) exceeds, and Node then binds a shortened path.
 */
function makeSocket(dir: string, name: string): void {
  const bind = `require('node:net').createServer().listen(${JSON.stringify(name)}, () => process.exit(0))`;
  const made = spawnSync(process.execPath, ['-e', bind], { cwd: dir, encoding: 'utf8', timeout: 30_000 });
  assert.equal(made.status, 0, `${made.status} ${made.signal} ${made.stderr}`);
  assert.ok(lstatSync(join(dir, name)).isSocket());
}

const skippedReasons = (diagnostics: { severity: string; file?: string; message: string }[]): string[] =>
  diagnostics
    .filter((diagnostic) => diagnostic.severity === 'warning')
    .map((diagnostic) => `${diagnostic.file!.split('/').slice(-1)[0]}: ${diagnostic.message}`)
    .sort();

test(
  'odd entries named *.lua are skipped with a warning each, and the tools beside them answer',
  { timeout: 60_000 },
  async () => {
    const dir = oddConfig();
    const host = await startHost(join(dir, 'init.lua'));
    assert.equal(host.loaded, true);
    assert.deepEqual(skippedReasons(host.diagnostics()), [
      '.#init.lua: skipped: a symbolic link to nothing',
      'loop.lua: skipped: cannot be resolved (ELOOP)',
      'pipe.lua: skipped: a FIFO',
      'socket.lua: skipped: a socket',
    ]);
    const [echoed, reloaded] = await Promise.all([host.call('echo', { text: 'unbothered' }), host.reload()]);
    assert.deepEqual([echoed.status, echoed.content], ['ok', 'unbothered']);
    assert.equal(reloaded.ok, true);
    assert.equal(skippedReasons(reloaded.diagnostics).length, 4);
  },
);

test('list, check and call through the CLI skip the odd entries and exit normally', { timeout: 60_000 }, () => {
  const dir = oddConfig();
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, ...args, '--config', dir, '--state-dir', tempDir()], {
      encoding: 'utf8',
      timeout: 30_000,
    });
  const list = run('list');
  assert.equal(list.status, 0, list.stderr);
  assert.match(list.stdout, /^spill /m);
  const check = run('check');
  assert.equal(check.status, 0, `${check.status} ${check.signal} ${check.stderr}`);
  assert.match(check.stdout, /pipe\.lua: warning: skipped: a FIFO/);
  assert.match(check.stdout, /2 tools loaded; 0 errors, 4 warnings/);
  const call = run('call', 'echo', '{"text":"hi"}');
  assert.deepEqual([call.status, call.stdout], [0, 'hi\n']);
  for (const output of [list.stderr, check.stderr, call.stderr]) assert.doesNotMatch(output, /\n\s+at /);
});

test('a subdirectory that cannot be listed is skipped with a warning', { timeout: 60_000 }, (t) => {
  const dir = tempDir();
  cpSync(join(FIXTURES, 'spill-faults', 'init.lua'), join(dir, 'init.lua'));
  mkdirSync(join(dir, 'private'));
  writeFileSync(join(dir, 'private', 'secret.lua'), 'return 1');
  const run = permissionsEnforced(process.execPath, [CLI, 'check', '--config', dir, '--state-dir', tempDir()]);
  if ('skip' in run) return t.skip(run.skip);
  chmodSync(join(dir, 'private'), 0o000);
  try {
    const check = spawnSync(run.command, run.args, { encoding: 'utf8', timeout: 30_000 });
    assert.equal(check.status, 0, `${check.status} ${check.signal} ${check.stderr}`);
    assert.match(check.stdout, /private: warning: skipped: the directory cannot be listed \(EACCES\)/);
    assert.match(check.stdout, /2 tools loaded; 0 errors, 1 warning/);
  } finally {
    chmodSync(join(dir, 'private'), 0o700);
  }
});

test(
  'a config file that is a FIFO fails the load at once instead of waiting for a writer',
  { timeout: 60_000 },
  async () => {
    const dir = tempDir();
    execFileSync('mkfifo', [join(dir, 'init.lua')]);
    const host = await startHost(join(dir, 'init.lua'));
    assert.equal(host.loaded, false);
    assert.match(host.diagnostics()[0]!.message, /init\.lua is not a regular file/);
    const reloaded = await host.reload();
    assert.equal(reloaded.ok, false);
    const list = spawnSync(process.execPath, [CLI, 'list', '--config', dir, '--state-dir', tempDir()], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(list.status, 2);
    assert.match(list.stderr, /is not a regular file/);
  },
);
