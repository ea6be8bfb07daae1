// The session log: one record per call with its last snapshot; a torn tail (the host killed
// mid-write) is skipped with a warning, every complete record survives, and appending goes on.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeMsgpack } from '../core/msgpack-codec.js';
import { encodeRecord, readSession, SessionLog, sessionLogPath, type SessionRecord } from '../core/session-log.js';
import { ROOT, startHost, tempDir } from './helpers.js';

const record = (i: number): SessionRecord => ({
  callId: `c${i}`,
  tool: 'demo',
  args: { i },
  status: 'ok',
  content: `result ${i}`,
  durationMs: i,
  // Started together, finished in turn: read back in the order written.
  finishedAt: i,
});

test('each call appends a record with its args, status, content, title and last snapshot', async () => {
  const host = await startHost('snapshots');
  await host.call('waits', { seconds: 0 });
  await host.call('renders', { mode: 'lines' });
  const { records, warnings } = host.resume();
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    records.map((entry) => [entry.tool, entry.status, entry.content, entry.title]),
    [
      ['waits', 'ok', 'waited', 'waiting'],
      ['renders', 'ok', 'rendered lines', undefined],
    ],
  );
  assert.deepEqual(records[0]!.args, { seconds: 0 });
  assert.deepEqual(decodeMsgpack(records[0]!.snapshot!), { phase: 'done' });
});

test('the record holds the arguments the call ran with, whatever the caller does with them after', async () => {
  const host = await startHost('matrix');
  const changed = { text: 'first' };
  const queued = host.call('echo', changed);
  changed.text = 'changed while the call ran';
  assert.equal((await queued).content, 'first');
  Object.assign(changed, { text: 'changed after', extra: 'added after the call' });
  let reads = 0;
  const counting = {
    get text(): string {
      return `read ${++reads}`;
    },
  };
  const counted = await host.call('echo', counting);
  let done = false;
  const throwing = {
    get text(): string {
      if (done) throw new Error('read after the call');
      return 'once';
    },
  };
  assert.equal((await host.call('echo', throwing)).content, 'once');
  done = true;
  const { records, warnings } = host.resume();
  assert.deepEqual(warnings, []);
  assert.equal(host.stats().sessionLogFailures, 0);
  assert.deepEqual(
    records.map((entry) => entry.args),
    [{ text: 'first' }, { text: counted.content }, { text: 'once' }],
  );
});

/** What an async iteration yields, collected. */
async function collect<T>(entries: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const entry of entries) collected.push(entry);
  return collected;
}

test('sessionEntries yields what resume returns, a record at a time, and stopping early closes the files', async () => {
  const stateDir = tempDir();
  const host = await startHost('snapshots', { stateDir });
  const log = SessionLog.open(stateDir, 'earlier');
  // Logged as they finished: the later ones started first.
  for (let i = 1; i <= 3; i++) log.append({ ...record(i), durationMs: 10 * i, finishedAt: 100 + i });
  log.close();
  const entries = await collect(host.sessionEntries('earlier'));
  assert.deepEqual(
    entries.map((entry) => ('record' in entry ? entry.record.callId : entry.warning)),
    ['c3', 'c2', 'c1'],
  );
  assert.deepEqual(
    entries.map((entry) => 'record' in entry && entry.record),
    host.resume('earlier').records,
  );
  assert.deepEqual(await collect(host.sessionEntries('../x')), [
    { warning: 'session ids match ^[A-Za-z0-9_-]{1,64}$ (got "../x")' },
  ]);
  if (process.platform !== 'linux') return; // Open files are counted in /proc.
  const openFiles = (): number => readdirSync('/proc/self/fd').length;
  const before = openFiles();
  for await (const entry of host.sessionEntries('earlier')) {
    assert.ok('record' in entry);
    assert.ok(openFiles() > before, 'the log is open while it is read');
    break;
  }
  assert.equal(openFiles(), before);
});

test('a torn last record is skipped with a warning, and the session can be appended to', () => {
  const stateDir = tempDir();
  const log = SessionLog.open(stateDir, 'torn');
  for (let i = 1; i <= 3; i++) log.append(record(i));
  log.close();
  const path = sessionLogPath(stateDir, 'torn');
  const partial = encodeRecord(record(4));
  appendFileSync(path, partial.subarray(0, partial.length - 5));

  const torn = readSession(stateDir, 'torn');
  assert.deepEqual(
    torn.records.map((entry) => entry.callId),
    ['c1', 'c2', 'c3'],
  );
  assert.equal(torn.warnings.length, 1);
  assert.match(torn.warnings[0]!, /a torn record \(the file ends inside it\)/);

  const reopened = SessionLog.open(stateDir, 'torn');
  assert.equal(reopened.warnings.length, 1);
  reopened.append(record(5));
  reopened.close();
  const after = readSession(stateDir, 'torn');
  assert.deepEqual(
    after.records.map((entry) => entry.callId),
    ['c1', 'c2', 'c3', 'c5'],
  );
  assert.deepEqual(after.warnings, []);
});

test('a record whose bytes changed is detected by its checksum', () => {
  const stateDir = tempDir();
  const log = SessionLog.open(stateDir, 'flipped');
  log.append(record(1));
  log.append(record(2));
  log.close();
  const path = sessionLogPath(stateDir, 'flipped');
  const bytes = readFileSync(path);
  const flipped = bytes.length - 3;
  bytes.writeUInt8(bytes.readUInt8(flipped) ^ 0xff, flipped);
  writeFileSync(path, bytes);
  const readout = readSession(stateDir, 'flipped');
  assert.deepEqual(
    readout.records.map((entry) => entry.callId),
    ['c1'],
  );
  assert.match(readout.warnings[0]!, /checksum does not match/);
});

test(
  'kill -9 of a process in the middle of a stream of appends loses no completed record',
  { timeout: 90_000 },
  async () => {
    const stateDir = tempDir();
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'test', 'session-writer.js'), stateDir, 'killed'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let completed = 0;
    let partial = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      if (lines.length > 0) completed = Number(lines.at(-1));
      if (completed >= 300) child.kill('SIGKILL');
    });
    const code = await exited;
    assert.equal(code, null, `the writer exited with ${code} after ${completed} records instead of being killed`);
    const path = sessionLogPath(stateDir, 'killed');
    const readout = readSession(stateDir, 'killed');
    assert.ok(
      readout.records.length >= completed,
      `${readout.records.length} records read, ${completed} reported complete`,
    );
    readout.records.forEach((entry, i) => assert.equal(entry.callId, `c${i + 1}`));
    assert.ok(readout.validBytes <= statSync(path).size);

    const log = SessionLog.open(stateDir, 'killed');
    log.append(record(0));
    log.close();
    const after = readSession(stateDir, 'killed');
    assert.equal(after.records.length, readout.records.length + 1);
    assert.deepEqual(after.warnings, []);
  },
);

test('records still queued when the host process exits without closing are written', () => {
  const stateDir = tempDir();
  const child = spawnSync(
    process.execPath,
    [join(ROOT, 'dist', 'test', 'session-exiter.js'), stateDir, 'exited', '25'],
    { encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  const readout = readSession(stateDir, 'exited');
  assert.deepEqual(readout.warnings, []);
  assert.equal(readout.records.length, 25);
  assert.ok(readout.records.every((entry) => entry.tool === 'waits' && entry.status === 'ok'));
});

test('a record that cannot be encoded is counted as lost and the records around it are written', () => {
  const stateDir = tempDir();
  const log = SessionLog.open(stateDir, 'lossy');
  log.enqueue(record(1));
  // Only arguments are the caller's: a field the host made that msgpack cannot hold loses its record.
  log.enqueue({ ...record(2), title: (2n ** 70n) as unknown as string });
  log.enqueue(record(3));
  log.flush();
  assert.equal(log.lost, 1);
  log.close();
  assert.deepEqual(
    readSession(stateDir, 'lossy').records.map((entry) => entry.callId),
    ['c1', 'c3'],
  );
});

test('arguments msgpack cannot hold (a BigInt past 64 bits) are not recorded; the rest of the record is', async () => {
  const host = await startHost('snapshots');
  const result = await host.call('storm', { n: 1, huge: 2n ** 70n });
  // Named by its size: its 2.4 million decimal digits were the record before.
  const huge = await host.call('storm', { n: 1, huge: -(2n ** 8_000_000n) });
  const { records, warnings } = host.resume();
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    records.map((entry) => [entry.callId, entry.status, entry.args]),
    [
      [
        result.callId,
        result.status,
        { $notRecorded: 'cannot be recorded (an integer of 71 bits does not fit in 64 bits)' },
      ],
      [
        huge.callId,
        huge.status,
        { $notRecorded: 'cannot be recorded (an integer of 8,000,001 bits does not fit in 64 bits)' },
      ],
    ],
  );
  assert.ok(statSync(host.sessionLogPath).size < 4096, `the log holds ${statSync(host.sessionLogPath).size} bytes`);
  assert.equal(host.stats().sessionLogFailures, 0);
});

test('open logs share one exit hook, however many there are', () => {
  const stateDir = tempDir();
  const before = process.listenerCount('exit');
  const logs = Array.from({ length: 12 }, (_, i) => SessionLog.open(stateDir, `many-${i}`));
  assert.ok(process.listenerCount('exit') <= before + 1, `${process.listenerCount('exit') - before} exit hooks`);
  for (const log of logs) log.close();
});
