// Nothing throws out of the host API: a spill directory removed or replaced under a running host,
// a full disk, a state dir that is a file, a config that vanished, a closed host — `call`,
// `reload`, `render` and `resume` answer with data, the failures are counted in `stats()`, and a
// healthy tool beside the faulty one keeps answering correctly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, FIXTURES, NO_SMALL_DISK, permissionsEnforced, smallDisk, startHost, tempDir } from './helpers.js';

const CONFIG = join(FIXTURES, 'spill-faults');
const LIMITS = { maxInlineChars: 2_000, maxInlineLines: 50 };

async function spillBeside(
  host: Awaited<ReturnType<typeof startHost>>,
  disturb: 'none' | 'remove' | 'file',
  lines = 500,
) {
  const [spilled, echoed] = await Promise.all([
    host.call('spill', { lines, disturb }),
    host.call('echo', { text: `beside ${disturb}` }),
  ]);
  assert.deepEqual([echoed.status, echoed.content], ['ok', `beside ${disturb}`]);
  return spilled;
}

test('a tool that removes its spill directory still gets its spill file: the directory is made again', async () => {
  const host = await startHost(CONFIG, LIMITS);
  const result = await spillBeside(host, 'remove');
  assert.equal(result.status, 'ok');
  assert.ok(result.spillPath !== undefined && existsSync(result.spillPath));
  assert.equal(readFileSync(result.spillPath, 'utf8').split('\n').length, 500);
  assert.match(result.content, /\[output truncated: shown \d+ of 500 lines; the full output is in /);
  assert.equal(host.stats().spillFailures, 0);
});

test('a file in place of the spill directory: the model gets the inline head with a note, and the failure is counted', async () => {
  const host = await startHost(CONFIG, LIMITS);
  const result = await spillBeside(host, 'file');
  assert.equal(result.status, 'ok');
  assert.equal(result.spillPath, undefined);
  assert.ok(result.content.length <= LIMITS.maxInlineChars);
  assert.match(result.content, /^line 1\n/);
  assert.match(
    result.content,
    /\[output truncated: shown \d+ of 500 lines; the full output could not be saved \(ENOTDIR writing .*spill-.*\.txt\)\]$/,
  );
  assert.equal(host.stats().spillFailures, 1);
  // The call is recorded all the same.
  await host.close();
  const recorded = host.resume().records.map((record) => `${record.tool} ${record.status}`);
  assert.deepEqual(recorded.sort(), ['echo ok', 'spill ok']);
});

test('a full disk under the state dir: spills fall back to the inline head, lost records are counted, calls go on', async (t) => {
  const disk = smallDisk('64k');
  if (disk === undefined) return t.skip(NO_SMALL_DISK);
  const host = await startHost(CONFIG, { ...LIMITS, stateDir: disk });
  writeFileSync(join(disk, 'filler'), Buffer.alloc(0));
  const results = await Promise.all([spillBeside(host, 'none', 20_000), spillBeside(host, 'none', 30_000)]);
  for (const result of results) {
    assert.equal(result.status, 'ok');
    assert.match(result.content, /the full output could not be saved \(ENOSPC writing /);
  }
  assert.equal(host.stats().spillFailures, 2);
  // Fill what is left, so the log's next write fails too: it is counted, never thrown.
  try {
    writeFileSync(join(disk, 'filler'), Buffer.alloc(64 * 1024));
  } catch {
    // The disk is full now, which is the point.
  }
  const later = await host.call('echo', { text: 'x'.repeat(8_000) });
  assert.equal(later.status, 'ok');
  await host.close();
  assert.ok(host.stats().sessionLogFailures >= 1, JSON.stringify(host.stats()));
});

test('moonpool call on a full disk answers and says in one line that its record was not written', (t) => {
  const disk = smallDisk('64k');
  if (disk === undefined) return t.skip(NO_SMALL_DISK);
  mkdirSync(join(disk, 'sessions'));
  mkdirSync(join(disk, 'spill'));
  try {
    writeFileSync(join(disk, 'filler'), Buffer.alloc(64 * 1024));
  } catch {
    // Full, as intended.
  }
  const run = spawnSync(
    process.execPath,
    [CLI, 'call', 'echo', JSON.stringify({ text: 'answered' }), '--config', CONFIG, '--state-dir', disk],
    { encoding: 'utf8' },
  );
  assert.deepEqual([run.status, run.stdout], [0, 'answered\n'], run.stderr);
  assert.match(run.stderr, /^moonpool: 1 call record was not written to the session log: [^\n]*\(ENOSPC\)[^\n]*\n$/);
});

test("a long-lived host's spill directory: pruning leaves it, and one removed anyway is made again at the next spill", async () => {
  const stateDir = tempDir();
  const host = await startHost(CONFIG, { ...LIMITS, stateDir });
  const first = await spillBeside(host, 'none');
  assert.ok(first.spillPath !== undefined);
  const old = new Date(Date.now() - 30 * 86_400_000);
  utimesSync(host.spillDir, old, old);
  const pruner = await startHost(CONFIG, { stateDir, spillRetentionDays: 1 });
  assert.ok(existsSync(first.spillPath), 'the other host left a live session’s spill directory alone');
  rmSync(host.spillDir, { recursive: true });
  const second = await spillBeside(host, 'none');
  assert.ok(second.spillPath !== undefined && statSync(second.spillPath).isFile());
  assert.equal(host.stats().spillFailures, 0);
  await pruner.close();
});

test('a state dir that is a file: calls still answer, the lost records are counted and named', async () => {
  const file = join(tempDir(), 'not-a-dir');
  writeFileSync(file, 'x');
  const host = await startHost(CONFIG, { ...LIMITS, stateDir: file });
  const [spilled, echoed] = await Promise.all([
    host.call('spill', { lines: 500, disturb: 'none' }),
    host.call('echo', { text: 'fine' }),
  ]);
  assert.deepEqual([echoed.status, echoed.content], ['ok', 'fine']);
  assert.equal(spilled.status, 'ok');
  assert.match(spilled.content, /could not be saved \(ENOTDIR/);
  assert.deepEqual([host.stats().sessionLogFailures, host.stats().spillFailures], [2, 1]);
  assert.match(
    host.sessionLogWarnings()[0]!,
    /the session log cannot be opened in .*not-a-dir \(ENOTDIR\); calls are not recorded/,
  );
  assert.deepEqual(host.resume().records, []);
});

test('the CLI refuses a state dir that is a file in one line, with exit code 2', () => {
  const file = join(tempDir(), 'not-a-dir');
  writeFileSync(file, 'x');
  for (const command of [['call', 'echo', '{"text":"hi"}'], ['mcp']]) {
    const run = spawnSync(process.execPath, [CLI, ...command, '--config', CONFIG, '--state-dir', file], {
      encoding: 'utf8',
      input: '',
    });
    assert.equal(run.status, 2, run.stderr);
    assert.equal(
      run.stderr,
      `moonpool: the state directory ${file} cannot be used (a file is in the way); pass --state-dir or set $XDG_STATE_HOME\n`,
    );
  }
});

test('the CLI refuses a state dir it may not write in one line, with exit code 2', (t) => {
  const parent = tempDir();
  const stateDir = join(parent, 'state');
  const run = permissionsEnforced(process.execPath, [
    CLI,
    'call',
    'echo',
    '{"text":"hi"}',
    '--config',
    CONFIG,
    '--state-dir',
    stateDir,
  ]);
  if ('skip' in run) return t.skip(run.skip);
  chmodSync(parent, 0o555);
  try {
    const refused = spawnSync(run.command, run.args, { encoding: 'utf8' });
    assert.equal(refused.status, 2, refused.stderr);
    assert.equal(
      refused.stderr,
      `moonpool: the state directory ${stateDir} cannot be used (EACCES); pass --state-dir or set $XDG_STATE_HOME\n`,
    );
  } finally {
    chmodSync(parent, 0o755);
  }
});

test('reload, render and resume answer with data when the config is gone, the snapshot is garbage, or the host is closed', async () => {
  const dir = tempDir();
  cpSync(join(FIXTURES, 'snapshots'), dir, { recursive: true });
  const host = await startHost(join(dir, 'init.lua'));
  const garbage = await host.render('renders', new Uint8Array([0xc1, 0xff, 0x00]), {
    width: 40,
    height: 5,
    expand: false,
  });
  assert.equal(garbage.ok, false);
  rmSync(join(dir, 'init.lua'));
  const reloaded = await host.reload();
  assert.equal(reloaded.ok, false);
  assert.match(reloaded.diagnostics[0]!.message, /does not exist/);
  assert.equal(host.loaded, true, 'the last good config keeps serving');
  await host.close();
  const [call, reload, render] = await Promise.all([
    host.call('waits', { seconds: 0 }),
    host.reload(),
    host.render('renders', new Uint8Array([0x80]), { width: 40, height: 5, expand: false }),
  ]);
  assert.deepEqual([call.status, call.content], ['cancelled', 'waits: not run: moonpool is shutting down']);
  assert.deepEqual([reload.ok, reload.diagnostics[0]!.message], [false, 'the ToolHost is closed']);
  assert.deepEqual(render, { ok: false, reason: 'moonpool is shutting down' });
});

test("a caller's hostile values are answered, never thrown: a name that is no string, thrown null, a getter", async () => {
  const host = await startHost(CONFIG);
  const unreadable = (thrown: unknown): AbortSignal =>
    ({
      get aborted(): boolean {
        throw thrown;
      },
    }) as unknown as AbortSignal;
  const throwsOnRead = Object.defineProperty({}, 'signal', {
    get() {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a hostile caller's getter
      throw undefined;
    },
  });
  const results = [
    await host.call('echo', { text: 'x' }, { signal: unreadable(null) }),
    await host.call('echo', { text: 'x' }, { signal: unreadable('nope') }),
    await host.call('echo', { text: 'x' }, throwsOnRead),
    await host.call(Symbol('x') as unknown as string, {}),
  ];
  assert.deepEqual(
    results.map((result) => [result.tool, result.status, result.content]),
    [
      ['echo', 'error', 'echo: moonpool failed to run the call: null'],
      ['echo', 'error', 'echo: moonpool failed to run the call: nope'],
      ['echo', 'error', 'echo: moonpool failed to run the call: undefined'],
      ['(a symbol)', 'unknown_tool', "unknown tool (a symbol): a tool's name is a string"],
    ],
  );
  const read = [];
  for await (const entry of host.sessionEntries(host.sessionId, { signal: unreadable(null) })) read.push(entry);
  assert.deepEqual(read.at(-1), { warning: `the read of session ${host.sessionId} stopped: null` });
});
