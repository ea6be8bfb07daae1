// Resuming a session with a large log: its outline (read to find where its last record ends) is
// read in slices, so the host's event loop keeps turning during the first calls, and the records
// of the calls made meanwhile are written after it, in order.
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { readSession, SessionLog, sessionLogPath } from '../core/session-log.js';
import { eventually, stallsDuring, startHost } from './helpers.js';
import { oldSession } from './old-session.js';

/** Records in the log: 44 MB, which took 2.2 s to outline on the host's thread before (the bound is a quarter). */
const RECORDS = 400_000;
const MAX_STALL_MS = 500;

test('a resumed session with a large log keeps the event loop turning while its log opens', async () => {
  const { stateDir, log: main, bytes: original } = oldSession(RECORDS);
  const written = original.length;

  const host = await startHost('snapshots', { stateDir, sessionId: 'big' });
  const calls: string[] = [];
  const { stallMs } = await stallsDuring(async () => {
    for (let i = 0; i < 3; i++) calls.push((await host.call('waits', { seconds: 0 })).callId);
    // The log is held while it opens: another writer goes beside it.
    const second = SessionLog.open(stateDir, 'big');
    assert.notEqual(second.path, main);
    second.close();
    assert.ok(await eventually(() => statSync(main).size > written, 60_000), 'the calls were written to the log');
  });
  assert.ok(stallMs < MAX_STALL_MS, `the event loop stalled ${Math.round(stallMs)} ms`);
  await host.close();
  // Reading all of it back takes seconds: the calls' records are read from what was appended, in a log of their own.
  const after = readFileSync(main);
  assert.ok(after.subarray(0, written).equals(original), 'what the log held stays');
  const appended = after.subarray(written);
  writeFileSync(sessionLogPath(stateDir, 'appended'), appended);
  const { records, warnings } = readSession(stateDir, 'appended');
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    records.map((record) => record.callId),
    calls,
  );
  assert.equal(host.stats().sessionLogFailures, 0);
});
