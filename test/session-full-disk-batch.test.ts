// A batch of records written at once onto a disk that fills half-way keeps the records it wrote
// whole: only the rest are lost (and counted), and the log stays readable.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { readSession, SessionLog, type SessionRecord } from '../core/session-log.js';
import { NO_SMALL_DISK, smallDisk } from './helpers.js';

const RECORDS = 12;

const record = (i: number): SessionRecord => ({
  callId: `c${i}`,
  tool: 'echo',
  args: { i },
  status: 'ok',
  content: `${i} `.padEnd(40_000, 'x'),
  durationMs: 1,
  finishedAt: 1_800_000_000_000 + i,
});

test('a batched write that fills the disk keeps the records it wrote whole', (t) => {
  const disk = smallDisk('256k');
  if (disk === undefined) return t.skip(NO_SMALL_DISK);
  const stateDir = join(disk, 'state');
  const log = SessionLog.open(stateDir, 'full');
  for (let i = 1; i <= RECORDS; i++) log.enqueue(record(i));
  log.close();
  const { records, warnings } = readSession(stateDir, 'full');
  assert.deepEqual(warnings, []);
  assert.ok(records.length >= 3, `records kept: ${records.length}`);
  assert.equal(records.length + log.lost, RECORDS, `kept ${records.length}, lost ${log.lost}`);
  assert.deepEqual(
    records.map((entry) => entry.callId),
    Array.from({ length: records.length }, (_, i) => `c${i + 1}`),
  );
});
