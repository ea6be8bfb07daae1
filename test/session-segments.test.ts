// A session's log past its segment size continues in a new segment file: every record is read back
// across the segments in order, `moonpool sessions` counts them all, the retention rule removes
// the oldest segments of a session still in use (and reading it says so) — a long-lived host
// applies it to its own log as the log rolls over — and a torn last frame in a segment is skipped
// with a warning like any torn tail.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  encodeRecord,
  readSession,
  sessionEntries,
  SessionLog,
  sessionLogPath,
  type SessionEntry,
  type SessionRecord,
} from '../core/session-log.js';
import { CLI, startHost, tempDir } from './helpers.js';

const SEGMENT_BYTES = 4096;
const CALLS = 100;

const record = (i: number): SessionRecord => ({
  callId: `c${i}`,
  tool: 'echo',
  args: { i },
  status: 'ok',
  content: `answer ${i} `.padEnd(150, '.'),
  durationMs: 1,
  finishedAt: 1_800_000_000_000 + i,
});

/** A session of CALLS records written with a small segment size, its log left open (in use) when `keepOpen`. */
function writeSession(stateDir: string, id: string, keepOpen = false): SessionLog {
  const log = SessionLog.open(stateDir, id, undefined, { bytes: SEGMENT_BYTES });
  for (let i = 1; i <= CALLS; i++) log.append(record(i));
  if (!keepOpen) log.close();
  return log;
}

const logFiles = (stateDir: string): string[] =>
  readdirSync(join(stateDir, 'sessions'))
    .filter((name) => name.endsWith('.log'))
    .sort();

function moonpool(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, MOONPOOL_CONFIG: '', MOONPOOL_KEEP_SESSIONS: '' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('session log segments', () => {
  test('the log rolls over at the segment size, and every record is read back across segments in order', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 's');
    const files = logFiles(stateDir);
    assert.ok(files.length > 3, `segments: ${files.join(', ')}`);
    assert.equal(files.at(-1), 's.log');
    assert.deepEqual(files.slice(0, 3), ['s.000001.log', 's.000002.log', 's.000003.log']);
    for (const name of files)
      assert.ok(statSync(join(stateDir, 'sessions', name)).size <= SEGMENT_BYTES, `${name} is past the segment size`);
    // A segment is cut only when the next record would not fit.
    assert.ok(statSync(join(stateDir, 'sessions', 's.000001.log')).size > SEGMENT_BYTES - 300);
    const { records, warnings } = readSession(stateDir, 's');
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      records.map((entry) => entry.callId),
      Array.from({ length: CALLS }, (_, i) => `c${i + 1}`),
    );
    const [listed] = JSON.parse(moonpool(['sessions', '--json', '--state-dir', stateDir]).stdout) as {
      id: string;
      calls: number;
      startedAt: number;
    }[];
    assert.deepEqual([listed!.id, listed!.calls, listed!.startedAt], ['s', CALLS, record(1).finishedAt - 1]);
  });

  test('records queued together are cut into segments as records written one at a time are', () => {
    const stateDir = tempDir();
    const log = SessionLog.open(stateDir, 'queued', undefined, { bytes: SEGMENT_BYTES });
    for (let i = 1; i <= CALLS; i++) log.enqueue(record(i));
    log.close();
    const files = logFiles(stateDir);
    assert.ok(files.length > 3, `segments: ${files.join(', ')}`);
    for (const name of files)
      assert.ok(statSync(join(stateDir, 'sessions', name)).size <= SEGMENT_BYTES, `${name} is past the segment size`);
    assert.equal(readSession(stateDir, 'queued').records.length, CALLS);
  });

  test('calls that ended in the same millisecond are read back in the order written, across segments', () => {
    const stateDir = tempDir();
    const log = SessionLog.open(stateDir, 'fast', undefined, { bytes: SEGMENT_BYTES });
    for (let i = 1; i <= CALLS; i++) log.append({ ...record(i), durationMs: 0, finishedAt: 1_800_000_000_000 });
    log.close();
    assert.ok(logFiles(stateDir).length > 3);
    assert.deepEqual(
      readSession(stateDir, 'fast').records.map((entry) => entry.callId),
      Array.from({ length: CALLS }, (_, i) => `c${i + 1}`),
    );
  });

  test('the retention rule removes the oldest segments of a session in use, and reading it says so', () => {
    const stateDir = tempDir();
    const log = writeSession(stateDir, 'live', true);
    try {
      const before = logFiles(stateDir);
      const listed = moonpool(['sessions', '--json', '--state-dir', stateDir, '--keep-sessions', '10KiB']);
      assert.equal(listed.code, 0, listed.stderr);
      assert.match(listed.stderr, /removed \d+ old log segments of sessions in use past the retention rule/);
      const after = logFiles(stateDir);
      assert.ok(after.includes('live.log'), 'the segment being written stays');
      assert.ok(!after.includes('live.000001.log'), `the oldest segment is gone: ${after.join(', ')}`);
      assert.ok(after.length < before.length && after.length > 1);
      const total = after.reduce((sum, name) => sum + statSync(join(stateDir, 'sessions', name)).size, 0);
      assert.ok(total <= 10 * 1024, `what stays fits the cap: ${total} bytes`);
      const { records, warnings } = readSession(stateDir, 'live');
      const removed = Number(/^live\.(\d+)\.log$/.exec(after[0]!)![1]) - 1;
      assert.match(
        warnings[0]!,
        new RegExp(`^session live: the first ${removed} segments of its log were removed by the retention rule`),
      );
      const ids = records.map((entry) => Number(entry.callId.slice(1)));
      assert.deepEqual(
        ids,
        Array.from({ length: ids.length }, (_, i) => CALLS - ids.length + 1 + i),
        'the newest calls, in order',
      );
      assert.equal((JSON.parse(listed.stdout) as { calls: number }[])[0]!.calls, ids.length);
    } finally {
      log.close();
    }
  });

  test('a roll-over while a session is read misses no segment, whether before or after its log is opened', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'race');
    const segment = (n: number): string => join(stateDir, 'sessions', `race.${String(n).padStart(6, '0')}.log`);
    const segments = logFiles(stateDir).length - 1;
    const main = sessionLogPath(stateDir, 'race');
    /** Renames the log to the next segment and begins a new one holding `record(id)`, as the writer does. */
    const rollOver = (n: number, id: number): void => {
      renameSync(main, segment(n));
      writeFileSync(main, encodeRecord(record(id)));
    };
    const readWithRollOver = (n: number, id: number): SessionEntry[] => {
      const entries = sessionEntries(stateDir, 'race');
      let first = entries.next();
      while (!first.done && first.value === undefined) first = entries.next();
      assert.ok(
        !first.done && first.value !== undefined && 'warning' in first.value,
        'reading paused at its first warning',
      );
      rollOver(n, id);
      return [first.value, ...[...entries].filter((entry) => entry !== undefined)];
    };
    const callIds = (read: SessionEntry[]): string[] =>
      read.flatMap((entry) => ('record' in entry ? [entry.record.callId] : []));
    // Paused at a torn segment's warning, its log already open: the log's records are read once, under either name.
    truncateSync(segment(1), statSync(segment(1)).size - 10);
    const torn = readWithRollOver(segments + 1, 1001);
    assert.equal(torn.filter((entry) => 'warning' in entry).length, 1);
    assert.equal(callIds(torn).length, CALLS - 1);
    assert.equal(new Set(callIds(torn)).size, CALLS - 1);
    // Paused at the removed segments' warning, after the listing and before the log is opened.
    rmSync(segment(1));
    const listedFirst = readWithRollOver(segments + 2, 1002);
    const expected = [...readSession(stateDir, 'race').records.map((entry) => entry.callId)];
    assert.ok(expected.includes('c1001') && expected.includes('c1002'));
    assert.deepEqual(callIds(listedFirst), expected);
    assert.match((listedFirst[0] as { warning: string }).warning, /the first 1 segment of its log was removed/);
  });

  test('a torn last frame in a segment is skipped with a warning; the records around it are read', () => {
    const stateDir = tempDir();
    writeSession(stateDir, 'torn');
    const first = join(stateDir, 'sessions', 'torn.000001.log');
    truncateSync(first, statSync(first).size - 10);
    const { records, warnings } = readSession(stateDir, 'torn');
    assert.equal(records.length, CALLS - 1);
    assert.equal(warnings.length, 1);
    assert.match(
      warnings[0]!,
      /torn\.000001\.log: skipped \d+ bytes at offset \d+: a torn record \(the file ends inside it\)/,
    );
    const ids = records.map((entry) => Number(entry.callId.slice(1)));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => a - b),
    );
  });

  test(
    "a host's own log rolls over at sessionSegmentBytes and its oldest segments go past the size cap",
    { timeout: 120_000 },
    async () => {
      const stateDir = tempDir();
      const host = await startHost('matrix', { stateDir, sessionSegmentBytes: 2048, sessionMaxTotalBytes: 8192 });
      for (let i = 1; i <= 80; i++)
        assert.equal((await host.call('echo', { text: `call ${i} `.padEnd(100, '.') })).status, 'ok');
      await host.close();
      const files = logFiles(stateDir);
      const id = host.sessionId;
      assert.ok(files.includes(`${id}.log`));
      assert.ok(!files.includes(`${id}.000001.log`), `the oldest segment is gone: ${files.join(', ')}`);
      assert.ok(
        files.some((name) => name.startsWith(`${id}.0`)),
        `later segments stay: ${files.join(', ')}`,
      );
      const { records, warnings } = readSession(stateDir, id);
      assert.match(warnings[0]!, /segments? of its log (was|were) removed by the retention rule/);
      assert.match(JSON.stringify(records.at(-1)!.args), /call 80 /, 'the last call is read back');
    },
  );
});
