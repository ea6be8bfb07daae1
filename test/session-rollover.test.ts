// A roll-over must never leave the writer writing into a file the retention rule may remove, never
// replace a segment it did not write, and never reuse a segment number once older segments are
// gone (reading would then not say that calls were removed).
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodeRecord, readSession, SessionLog, type SessionRecord } from '../core/session-log.js';
import { pruneSessions } from '../core/session-retention.js';
import { NO_SMALL_DISK, smallDisk, tempDir } from './helpers.js';

const SEGMENT_BYTES = 2000;

const record = (i: number): SessionRecord => ({
  callId: `c${i}`,
  tool: 'echo',
  args: { i },
  status: 'ok',
  content: `answer ${i} `.padEnd(150, '.'),
  durationMs: 1,
  finishedAt: 1_800_000_000_000 + i,
});

const logFiles = (stateDir: string): string[] =>
  readdirSync(join(stateDir, 'sessions'))
    .filter((name) => name.endsWith('.log'))
    .sort();

const callIds = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `c${from + i}`);

/** Creates empty files in `dir` until no inode is left. */
function useUpInodes(dir: string): void {
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, `filler-${i}`), '');
    } catch {
      return;
    }
  }
}

describe('session log roll-over', () => {
  test('a roll-over that cannot begin a new log keeps writing the log, which the retention rule leaves', (t) => {
    const disk = smallDisk('4m', 16);
    if (disk === undefined) return t.skip(NO_SMALL_DISK);
    const stateDir = join(disk, 'state');
    const log = SessionLog.open(stateDir, 'S', undefined, { bytes: SEGMENT_BYTES });
    try {
      log.append(record(1));
      useUpInodes(disk);
      for (let i = 2; i <= 60; i++) log.append(record(i));
      // Another process's retention rule on a session in use removes its oldest segments.
      pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: 1024 }, undefined);
      for (let i = 61; i <= 80; i++) log.append(record(i));
    } finally {
      log.close();
    }
    assert.equal(log.lost, 0);
    const { records, warnings } = readSession(stateDir, 'S');
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      records.map((entry) => entry.callId),
      callIds(1, 80),
    );
    assert.deepEqual(logFiles(stateDir), ['S.log'], 'nothing was renamed');
  });

  test('a roll-over never replaces a segment another writer made: it takes the next number', () => {
    const stateDir = tempDir();
    const log = SessionLog.open(stateDir, 'S', undefined, { bytes: SEGMENT_BYTES });
    // A second holder of the lock (a process in another pid namespace) rolled over first.
    const theirs = [101, 102, 103].map(record);
    writeFileSync(join(stateDir, 'sessions', 'S.000001.log'), Buffer.concat(theirs.map(encodeRecord)));
    for (let i = 1; i <= 30; i++) log.append(record(i));
    log.close();
    assert.equal(log.lost, 0);
    const { records, warnings } = readSession(stateDir, 'S');
    assert.deepEqual(warnings, []);
    assert.deepEqual(records.map((entry) => entry.callId).sort(), [...callIds(1, 30), ...callIds(101, 103)].sort());
    assert.ok(logFiles(stateDir).includes('S.000002.log'), logFiles(stateDir).join(', '));
  });

  test('once the retention rule removed every older segment, numbering goes on and reading says so', () => {
    const stateDir = tempDir();
    const first = SessionLog.open(stateDir, 'S', undefined, { bytes: SEGMENT_BYTES });
    for (let i = 1; i <= 40; i++) first.append(record(i));
    // The session is in use (its log open): the retention rule removes all its older segments.
    const removed = pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: 1024 }, undefined).removedSegments;
    first.close();
    const segmentsRemoved = removed.length;
    assert.ok(segmentsRemoved > 1, `removed: ${removed.join(', ')}`);
    const warning = new RegExp(`^session S: the first ${segmentsRemoved} segments of its log were removed`);
    assert.match(readSession(stateDir, 'S').warnings[0] ?? '', warning);
    const second = SessionLog.open(stateDir, 'S', undefined, { bytes: SEGMENT_BYTES });
    for (let i = 41; i <= 80; i++) second.append(record(i));
    second.close();
    const { records, warnings } = readSession(stateDir, 'S');
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0]!, warning);
    assert.equal(records.at(-1)?.callId, 'c80');
    assert.ok(!logFiles(stateDir).includes('S.000001.log'), logFiles(stateDir).join(', '));
  });
});
