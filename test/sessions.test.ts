// Sessions over time: `moonpool sessions` lists them (newest last, in use marked, damage noted),
// `replay last` shows the newest, replay orders calls by start, and the retention rule removes old
// or excess sessions with their spill files — never one in use, never a file that is not a session,
// and two processes pruning at once each remove a session at most once between them.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, test } from 'node:test';
import { ToolHost } from '../core/index.js';
import { pruneSessions, pruneSpillDirs } from '../core/session-retention.js';
import { SessionLog, sessionLogPath, type SessionRecord } from '../core/session-log.js';
import { summarizeSessions } from '../core/session-files.js';
import { CLI, FIXTURES, ROOT, tempDir } from './helpers.js';

const DAY_MS = 86_400_000;

const record = (callId: string, startedAt: number, durationMs: number, tool = 'gone'): SessionRecord => ({
  callId,
  tool,
  args: {},
  status: 'ok',
  content: `text of ${callId}`,
  durationMs,
  finishedAt: startedAt + durationMs,
});

/** Writes a session's log (and a spill file) and dates all of it `ageDays` back. */
function writeSession(stateDir: string, id: string, records: SessionRecord[], ageDays = 0): void {
  const log = SessionLog.open(stateDir, id);
  for (const entry of records) log.append(entry);
  log.close();
  const spill = join(stateDir, 'spill', id);
  mkdirSync(spill, { recursive: true });
  writeFileSync(join(spill, 'tool-1.txt'), 'spilled output\n');
  const when = new Date(Date.now() - ageDays * DAY_MS);
  for (const path of [sessionLogPath(stateDir, id), join(spill, 'tool-1.txt'), spill]) utimesSync(path, when, when);
}

function moonpool(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, MOONPOOL_CONFIG: '', MOONPOOL_KEEP_SESSIONS: '', ...env },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A live process holding a session's log open (its lock), until the test file ends. */
async function holdSession(stateDir: string, id: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'test', 'session-writer.js'), stateDir, id], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  after(() => void child.kill('SIGKILL'));
  // Its first record is written once it holds the lock.
  await once(createInterface({ input: child.stdout }), 'line');
  return child;
}

describe('moonpool sessions', () => {
  test('lists one line per session — id, UTC start, calls, size — oldest first, the newest last', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'newer', [record('n1', Date.UTC(2026, 10, 30, 11, 0, 0), 5)]);
    writeSession(stateDir, 'older', [
      record('o1', Date.UTC(2026, 10, 30, 9, 30, 0), 5),
      record('o2', Date.UTC(2026, 10, 30, 9, 31, 0), 5),
    ]);
    const listed = moonpool(['sessions', '--state-dir', stateDir]);
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0]!, /^older {2}2026-11-30 09:30:00Z +2 calls +\d+ B$/);
    assert.match(lines[1]!, /^newer {2}2026-11-30 11:00:00Z +1 call +\d+ B$/);
    const [older] = summarizeSessions(stateDir);
    assert.ok(older!.bytes > 'spilled output\n'.length, 'the size counts the log and the spill files');
  });

  test('a session a live process is writing is marked in use with its pid', async () => {
    const stateDir = tempDir();
    const writer = await holdSession(stateDir, 'busy');
    const listed = moonpool(['sessions', '--state-dir', stateDir]);
    assert.match(listed.stdout, new RegExp(`^busy .* in use \\(pid ${writer.pid}\\)$`, 'm'));
  });

  test('a truncated or garbage log is listed with a note saying what was skipped, not a crash', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'torn', [record('t1', 1_000, 5), record('t2', 2_000, 5)]);
    const path = sessionLogPath(stateDir, 'torn');
    const bytes = spawnSync('head', ['-c', '-7', path]).stdout;
    writeFileSync(path, bytes);
    writeFileSync(join(stateDir, 'sessions', 'garbage.log'), 'not a session log at all\n');
    const listed = moonpool(['sessions', '--state-dir', stateDir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(
      listed.stdout,
      /^torn .* 1 call .* damaged: torn\.log: skipped \d+ bytes at offset \d+: a torn record \(the file ends inside it\)$/m,
    );
    assert.match(
      listed.stdout,
      /^garbage .* 0 calls .* damaged: garbage\.log: skipped 25 bytes at offset 0: no record starts here$/m,
    );
  });

  test('a state dir that is a file is a one-line error, exit 2', () => {
    const file = join(tempDir(), 'state');
    writeFileSync(file, 'not a directory');
    const listed = moonpool(['sessions', '--state-dir', file]);
    assert.deepEqual(
      [listed.code, listed.stdout, listed.stderr],
      [2, '', `moonpool: the state directory ${file} is not a directory; pass --state-dir or set $XDG_STATE_HOME\n`],
    );
  });

  test('a log msgpackr wrote is listed whole, and a record that left its snapshot out is no damage', () => {
    const stateDir = tempDir();
    mkdirSync(join(stateDir, 'sessions'));
    copyFileSync(join(FIXTURES, 'msgpackr-era', 'session.log'), sessionLogPath(stateDir, 'before'));
    const listed = moonpool(['sessions', '--state-dir', stateDir]);
    assert.match(listed.stdout, /^before {2}2025-11-30 10:53:20Z {6}3 calls {7}671 B\n$/);
  });

  test('records with impossible times (NaN, 1e300) do not crash the listing', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'odd-times', [
      { ...record('nan', 0, 1), finishedAt: Number.NaN },
      { ...record('huge', 0, 1), finishedAt: 1e300 },
    ]);
    const listed = moonpool(['sessions', '--state-dir', stateDir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^odd-times {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ +2 calls /);
  });

  test('a FIFO named like a log is neither listed nor read, and replaying its session does not hang', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'piped', [record('p1', 1_000, 5)]);
    execFileSync('mkfifo', [join(stateDir, 'sessions', 'piped.4242-0a.log'), join(stateDir, 'sessions', 'fifo.log')]);
    const listed = moonpool(['sessions', '--state-dir', stateDir]);
    assert.match(listed.stdout, /^piped .* 1 call .*B$/m);
    assert.doesNotMatch(listed.stdout, /^fifo /m);
    const replayed = moonpool(['replay', 'piped', '--config', join(FIXTURES, 'snapshots'), '--state-dir', stateDir]);
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.match(replayed.stdout, /text of p1/);
    assert.match(replayed.stderr, /piped\.4242-0a\.log: not a regular file; skipped/);
  });

  test('a FIFO in place of a session log is left alone: the call neither hangs nor loses its record', async () => {
    const stateDir = tempDir();
    mkdirSync(join(stateDir, 'sessions'));
    execFileSync('mkfifo', [sessionLogPath(stateDir, 'fifo')]);
    const host = await ToolHost.start({ config: join(FIXTURES, 'snapshots'), stateDir, sessionId: 'fifo' });
    after(() => host.close());
    const result = await host.call('waits', { seconds: 0 });
    assert.equal(result.status, 'ok');
    assert.equal(host.stats().sessionLogFailures, 0);
    assert.match(
      host.sessionLogWarnings().join('\n'),
      /fifo\.log: not a regular file; skipped; this host's calls go to .*fifo\.\d+-[0-9a-f]+\.log/,
    );
  });

  test('a FIFO named like a session lock is never read: pruning, listing and a call on that session all finish', () => {
    const stateDir = tempDir();
    writeSession(stateDir, '20261101-000000-aaaaaa', [record('old', 1_000, 1)], 40);
    execFileSync('mkfifo', [`${sessionLogPath(stateDir, '20261101-000000-aaaaaa')}.lock`]);
    const listed = spawnSync(
      process.execPath,
      [CLI, 'sessions', '--state-dir', stateDir, '--keep-sessions', 'forever'],
      { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' },
    );
    assert.equal(listed.status, 0, listed.stderr);
    const called = spawnSync(
      process.execPath,
      [
        CLI,
        'call',
        'waits',
        '{"seconds":0}',
        '--config',
        join(FIXTURES, 'snapshots'),
        '--state-dir',
        stateDir,
        '--session',
        '20261101-000000-aaaaaa',
      ],
      { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' },
    );
    assert.equal(called.status, 0, called.stderr);
    const pruned = spawnSync(process.execPath, [CLI, 'sessions', '--state-dir', stateDir, '--keep-sessions', '0d'], {
      encoding: 'utf8',
      timeout: 30_000,
      killSignal: 'SIGKILL',
    });
    assert.equal(pruned.status, 0, pruned.stderr);
  });

  test('a session log with more after its last record than a torn write leaves is never cut: the next call goes to a file beside it', async () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'huge', [record('kept', 1_000, 1)]);
    const path = sessionLogPath(stateDir, 'huge');
    // Far past one record, without using the disk: the rest is a hole.
    truncateSync(path, 2.25 * 2 ** 30);
    const host = await ToolHost.start({ config: join(FIXTURES, 'snapshots'), stateDir, sessionId: 'huge' });
    after(() => host.close());
    assert.equal((await host.call('waits', { seconds: 0 })).status, 'ok');
    await host.close();
    assert.equal(statSync(path).size, 2.25 * 2 ** 30);
    assert.match(
      host.sessionLogWarnings().join('\n'),
      /huge\.log: \d+ bytes after its last intact record are more than a torn write leaves; it is not cut; this host's calls go to/,
    );
    assert.equal(
      readdirSync(join(stateDir, 'sessions')).filter((name) => /^huge\.\d+-[0-9a-f]+\.log$/.test(name)).length,
      1,
    );
  });

  test('a symlink in place of a session log is never followed: the file it names is untouched', async () => {
    const stateDir = tempDir();
    mkdirSync(join(stateDir, 'sessions'));
    const victim = join(tempDir(), 'victim.txt');
    writeFileSync(victim, 'precious\n');
    symlinkSync(victim, sessionLogPath(stateDir, 'linked'));
    const host = await ToolHost.start({ config: join(FIXTURES, 'snapshots'), stateDir, sessionId: 'linked' });
    after(() => host.close());
    assert.equal((await host.call('waits', { seconds: 0 })).status, 'ok');
    await host.close();
    assert.equal(readFileSync(victim, 'utf8'), 'precious\n');
  });

  test('--json gives every field; an empty state dir is said on stderr, exit 0', () => {
    const stateDir = tempDir();
    const empty = moonpool(['sessions', '--state-dir', join(stateDir, 'none')]);
    assert.deepEqual([empty.code, empty.stdout], [0, '']);
    assert.match(empty.stderr, /no sessions in /);
    writeSession(stateDir, 'one', [record('a', 5_000, 10)]);
    const listed = JSON.parse(moonpool(['sessions', '--json', '--state-dir', stateDir]).stdout) as unknown[];
    assert.deepEqual(listed, [
      { id: 'one', startedAt: 5_000, calls: 1, bytes: summarizeSessions(stateDir)[0]!.bytes, problems: [] },
    ]);
  });
});

describe('moonpool replay', () => {
  const config = join(FIXTURES, 'snapshots', 'init.lua');

  test('replay last shows the newest session, the last line of `moonpool sessions`', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'first', [record('f1', 1_000, 5)]);
    writeSession(stateDir, 'second', [record('s1', 9_000, 5)]);
    const replayed = moonpool(['replay', 'last', '--config', config, '--state-dir', stateDir]);
    assert.equal(replayed.code, 0, replayed.stderr);
    assert.match(replayed.stdout, /text of s1/);
    assert.doesNotMatch(replayed.stdout, /text of f1/);
    assert.equal(replayed.stderr, 'moonpool: replaying second, the newest session\n');
  });

  test('replay last with no session, or an id that is not one, is a one-line usage error (exit 2)', () => {
    const stateDir = tempDir();
    const none = moonpool(['replay', 'last', '--config', config, '--state-dir', stateDir]);
    assert.deepEqual([none.code, none.stderr], [2, `moonpool: there is no session to replay in ${stateDir}\n`]);
    const bad = moonpool(['replay', '../etc', '--config', config, '--state-dir', stateDir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^moonpool: '\.\.\/etc' is not a session id/);
  });

  test('blocks come in the order the calls started, across the logs of two writers', () => {
    const stateDir = tempDir();
    // `long` started first and finished last, in the second writer's log.
    writeSession(stateDir, 'mixed', [record('short', 2_000, 100), record('later', 3_000, 10)]);
    // While one log holds the session's lock, a second writer gets a file of its own beside it.
    const lock = SessionLog.open(stateDir, 'mixed');
    const beside = SessionLog.open(stateDir, 'mixed');
    assert.notEqual(beside.path, lock.path);
    beside.append(record('long', 1_000, 5_000));
    beside.close();
    lock.close();
    const replayed = moonpool(['replay', 'mixed', '--config', config, '--state-dir', stateDir]);
    assert.equal(replayed.code, 0, replayed.stderr);
    const order = [...replayed.stdout.matchAll(/text of (\w+)/g)].map((match) => match[1]);
    assert.deepEqual(order, ['long', 'short', 'later']);
  });
});

describe('the retention rule', () => {
  test('a session not written for longer than the age limit is removed with its spill directory', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'old', [record('o', 1_000, 1)], 40);
    writeSession(stateDir, 'recent', [record('r', 2_000, 1)], 1);
    assert.deepEqual(pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: Infinity }, undefined).removed, ['old']);
    assert.equal(existsSync(sessionLogPath(stateDir, 'old')), false);
    assert.equal(existsSync(join(stateDir, 'spill', 'old')), false);
    assert.ok(existsSync(sessionLogPath(stateDir, 'recent')) && existsSync(join(stateDir, 'spill', 'recent')));
  });

  test('past the total size, the oldest sessions go until the newest fit', () => {
    const stateDir = tempDir();
    for (const [i, id] of ['a', 'b', 'c', 'd'].entries()) writeSession(stateDir, id, [record(id, i, 1)], 4 - i);
    const oneSession = summarizeSessions(stateDir)[0]!.bytes;
    const result = pruneSessions(stateDir, { maxAgeDays: Infinity, maxTotalBytes: oneSession * 2 }, undefined);
    assert.deepEqual(result.removed.sort(), ['a', 'b']);
    assert.equal(result.freedBytes, oneSession * 2);
    assert.deepEqual(
      summarizeSessions(stateDir).map((summary) => summary.id),
      ['c', 'd'],
    );
  });

  test('a locked session older than the limit survives, and so does the caller’s own', async () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'held', [record('h', 1_000, 1)], 90);
    writeSession(stateDir, 'mine', [record('m', 1_000, 1)], 90);
    await holdSession(stateDir, 'held');
    const when = new Date(Date.now() - 90 * DAY_MS);
    utimesSync(sessionLogPath(stateDir, 'held'), when, when);
    assert.deepEqual(pruneSessions(stateDir, { maxAgeDays: 0, maxTotalBytes: 0 }, 'mine').removed, []);
    assert.ok(existsSync(sessionLogPath(stateDir, 'held')) && existsSync(join(stateDir, 'spill', 'held')));
    assert.ok(existsSync(sessionLogPath(stateDir, 'mine')));
  });

  test('a session a host resumed stays while the host lives, even before its first call, and its calls go to its own log', async () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'resumed', [record('r', 1_000, 1)], 90);
    const host = await ToolHost.start({
      config: join(FIXTURES, 'snapshots'),
      stateDir,
      sessionId: 'resumed',
      sessionMaxAgeDays: Infinity,
    });
    after(() => host.close());
    assert.deepEqual(pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: Infinity }, undefined).removed, []);
    assert.equal((await host.call('storm', { n: 1 })).status, 'ok');
    await host.close();
    assert.equal(host.resume('resumed').records.length, 2);
    assert.deepEqual(
      readdirSync(join(stateDir, 'sessions')),
      ['resumed.log'],
      'the call went to the session’s own log, and the lock is gone',
    );
  });

  test('old spill directories go, but not one holding anything else, nor a live session’s', async () => {
    const stateDir = tempDir();
    const spill = (name: string, file: string): string => {
      const dir = join(stateDir, 'spill', name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, file), 'x\n');
      return dir;
    };
    const old = spill('20261101-000000-bbbbbb', 'sh-ab12-1.txt');
    const notes = spill('my-notes', 'plans.md');
    writeSession(stateDir, 'live', [record('l', 1_000, 1)], 10);
    await holdSession(stateDir, 'live');
    const live = join(stateDir, 'spill', 'live');
    const when = new Date(Date.now() - 10 * DAY_MS);
    for (const dir of [old, notes, live]) utimesSync(dir, when, when);
    assert.equal(pruneSpillDirs(stateDir, 'mine', 7), 1);
    assert.deepEqual([existsSync(old), existsSync(notes), existsSync(live)], [false, true, true]);
  });

  test('an old spill directory stays while a live process writes its session beside the log', () => {
    const stateDir = tempDir();
    const dir = join(stateDir, 'spill', 'beside');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'sh-ab12-1.txt'), 'x\n');
    writeSession(stateDir, 'beside', [record('b', 1_000, 1)], 10);
    // The lock's holder has exited; a second writer (this process) still writes its own log.
    writeFileSync(join(stateDir, 'sessions', `beside.${process.pid}-abcdef.log`), '');
    const when = new Date(Date.now() - 10 * DAY_MS);
    utimesSync(dir, when, when);
    assert.equal(pruneSpillDirs(stateDir, 'mine', 7), 0);
    assert.ok(existsSync(join(dir, 'sh-ab12-1.txt')));
  });

  test('a session whose lock names a dead process is not in use and is removed, lock included', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'stale', [record('s', 1_000, 1)], 90);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    const lock = `${sessionLogPath(stateDir, 'stale')}.lock`;
    writeFileSync(lock, `${dead}\n`);
    // Left behind by a writer that died as long ago as its last record.
    const long = new Date(Date.now() - 90 * DAY_MS);
    utimesSync(lock, long, long);
    assert.deepEqual(pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: Infinity }, undefined).removed, [
      'stale',
    ]);
    assert.deepEqual(readdirSync(join(stateDir, 'sessions')), []);
  });

  test('files that are not sessions stay, whatever their age', () => {
    const stateDir = tempDir();
    const outside = tempDir();
    writeFileSync(join(outside, 'precious.log'), 'keep me');
    mkdirSync(join(outside, 'precious-dir'));
    writeSession(stateDir, 'old', [record('o', 1_000, 1)], 90);
    const sessions = join(stateDir, 'sessions');
    const odd = ['notes.txt', 'has.dot.in.id.log', 'old.log.lock.1234-abcdef', 'bad name.log'];
    for (const name of odd) writeFileSync(join(sessions, name), 'not a session');
    symlinkSync(join(outside, 'precious.log'), join(sessions, 'link.log'));
    mkdirSync(join(sessions, 'folder.log'));
    execFileSync('mkfifo', [join(sessions, 'old.fifo.log')]);
    mkdirSync(join(stateDir, 'spill', 'odd.dir'));
    symlinkSync(join(outside, 'precious-dir'), join(stateDir, 'spill', 'linked'));
    writeFileSync(join(stateDir, 'spill', 'plainfile'), 'x');
    const long = new Date(Date.now() - 90 * DAY_MS);
    for (const name of [...odd, 'folder.log']) utimesSync(join(sessions, name), long, long);

    assert.deepEqual(pruneSessions(stateDir, { maxAgeDays: 0, maxTotalBytes: 0 }, undefined).removed, ['old']);
    assert.deepEqual(readdirSync(sessions).sort(), [...odd, 'folder.log', 'link.log', 'old.fifo.log'].sort());
    assert.deepEqual(readdirSync(join(stateDir, 'spill')).sort(), ['linked', 'odd.dir', 'plainfile']);
    assert.ok(existsSync(join(outside, 'precious.log')) && existsSync(join(outside, 'precious-dir')));
  });

  test('two processes pruning at once remove every expired session exactly once between them', async () => {
    const stateDir = tempDir();
    const ids = Array.from({ length: 60 }, (_, i) => `expired-${i}`);
    for (const id of ids) writeSession(stateDir, id, [record(id, 1_000, 1)], 10);
    writeSession(stateDir, 'fresh', [record('fresh', 1_000, 1)]);
    writeFileSync(join(stateDir, 'sessions', 'notes.txt'), 'mine');
    const pruners = [0, 1].map(() =>
      spawn(process.execPath, [join(ROOT, 'dist', 'test', 'session-pruner.js'), stateDir], {
        stdio: ['pipe', 'pipe', 'inherit'],
      }),
    );
    for (const child of pruners) after(() => void child.kill('SIGKILL'));
    const lines = pruners.map((child) => createInterface({ input: child.stdout })[Symbol.asyncIterator]());
    for (const line of lines) assert.equal((await line.next()).value, 'ready');
    for (const child of pruners) child.stdin.end('go\n');
    const removed = await Promise.all(
      lines.map(async (line) => JSON.parse((await line.next()).value as string) as string[]),
    );
    const exits = await Promise.all(
      pruners.map(async (child) => (child.exitCode ?? (await once(child, 'exit'))[0]) as number),
    );
    assert.deepEqual(exits, [0, 0]);
    assert.deepEqual([...removed[0]!, ...removed[1]!].sort(), [...ids].sort());
    assert.deepEqual(readdirSync(join(stateDir, 'sessions')).sort(), ['fresh.log', 'notes.txt']);
    assert.deepEqual(readdirSync(join(stateDir, 'spill')), ['fresh']);
  });

  test('two `moonpool sessions` started together both succeed and report every removal once between them', async () => {
    const stateDir = tempDir();
    const ids = Array.from({ length: 40 }, (_, i) => `expired-${i}`);
    for (const id of ids) writeSession(stateDir, id, [record(id, 1_000, 1)], 10);
    writeSession(stateDir, 'fresh', [record('fresh', 1_000, 1)]);
    const run = async (): Promise<{ code: number; stderr: string; stdout: string }> => {
      // --all: the other run's sessions, locked while it removes them, may list as newer and push
      // 'fresh' past the newest 20.
      const child = spawn(
        process.execPath,
        [CLI, 'sessions', '--all', '--state-dir', stateDir, '--keep-sessions', '1d'],
        { env: { ...process.env, MOONPOOL_KEEP_SESSIONS: '' } },
      );
      after(() => void child.kill('SIGKILL'));
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const [code] = (await once(child, 'close')) as [number];
      return { code, stderr, stdout };
    };
    const results = await Promise.all([run(), run()]);
    assert.deepEqual(
      results.map((result) => result.code),
      [0, 0],
    );
    const removed = results.map((result) => Number(/removed (\d+) session/.exec(result.stderr)?.[1] ?? 0));
    assert.equal(removed[0]! + removed[1]!, ids.length, results.map((result) => result.stderr).join(''));
    for (const result of results) assert.match(result.stdout, /^fresh /m);
    assert.deepEqual(readdirSync(join(stateDir, 'sessions')), ['fresh.log']);
  });

  test('every command applies it at start; --keep-sessions and $MOONPOOL_KEEP_SESSIONS change it', () => {
    const stateDir = tempDir();
    const list = (env: NodeJS.ProcessEnv, ...extra: string[]) =>
      moonpool(['list', '--config', join(FIXTURES, 'snapshots'), '--state-dir', stateDir, ...extra], env);
    writeSession(stateDir, 'ten-days', [record('t', 1_000, 1)], 10);
    writeSession(stateDir, 'forty-days', [record('f', 1_000, 1)], 40);
    assert.equal(list({}).code, 0);
    assert.deepEqual(readdirSync(join(stateDir, 'sessions')), ['ten-days.log'], 'the default keeps 30 days');
    assert.equal(list({ MOONPOOL_KEEP_SESSIONS: '20d' }, '--keep-sessions', 'forever').code, 0);
    assert.ok(existsSync(sessionLogPath(stateDir, 'ten-days')), 'the option wins over the variable');
    assert.equal(list({ MOONPOOL_KEEP_SESSIONS: '5d,1GiB' }).code, 0);
    assert.deepEqual(readdirSync(join(stateDir, 'sessions')), []);
  });

  test('a negative or NaN retention option is refused by ToolHost.start, naming the option', async () => {
    const stateDir = tempDir();
    await assert.rejects(
      ToolHost.start({ config: join(FIXTURES, 'snapshots'), stateDir, sessionMaxAgeDays: -1 }),
      /options\.sessionMaxAgeDays must be a number, at least 0 \(Infinity for no limit; got -1\)/,
    );
    await assert.rejects(
      ToolHost.start({ config: join(FIXTURES, 'snapshots'), stateDir, sessionMaxTotalBytes: Number.NaN }),
      /options\.sessionMaxTotalBytes must be a number, at least 0/,
    );
  });

  test('a bad --keep-sessions or $MOONPOOL_KEEP_SESSIONS is a usage error naming it, and nothing is removed', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'old', [record('o', 1_000, 1)], 90);
    const option = moonpool(['sessions', '--state-dir', stateDir, '--keep-sessions', '30']);
    assert.equal(option.code, 2);
    assert.match(option.stderr, /^moonpool: --keep-sessions needs a unit after 30 \(d for days/);
    const variable = moonpool(['sessions', '--state-dir', stateDir], { MOONPOOL_KEEP_SESSIONS: '2 weeks' });
    assert.equal(variable.code, 2);
    assert.match(variable.stderr, /^moonpool: \$MOONPOOL_KEEP_SESSIONS takes an age in days/);
    assert.ok(existsSync(sessionLogPath(stateDir, 'old')));
  });
});

test('after many calls `sessions` lists the newest 20 and says how many it left out; --all lists every one', () => {
  const stateDir = tempDir();
  const start = Date.now() - 3_600_000;
  for (let i = 0; i < 25; i++)
    writeSession(stateDir, `20261201-0000${String(i).padStart(2, '0')}-aaaaaa`, [record(`c${i}`, start + i * 1000, 5)]);
  const listed = moonpool(['sessions', '--state-dir', stateDir]);
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 20);
  assert.match(lines[0]!, /^20261201-000005-aaaaaa /);
  assert.match(lines[19]!, /^20261201-000024-aaaaaa /);
  assert.equal(listed.stderr, 'moonpool: 5 older sessions not shown (--all lists every one)\n');
  const all = moonpool(['sessions', '--all', '--state-dir', stateDir]);
  assert.deepEqual([all.stdout.trimEnd().split('\n').length, all.stderr], [25, '']);
});
