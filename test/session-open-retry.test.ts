// A resumed session's log whose opening fails after its outline began (here: the log is replaced
// by a directory while it is outlined, which works as root, unlike a chmod) is opened again by the
// next call's record once the state dir is mended: the records of the calls that ended meanwhile
// are counted lost, and every record after is written, instead of being lost for the host's life.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { readSession, sessionLogPath } from '../core/session-log.js';
import { eventually, startHost } from './helpers.js';
import { oldSession } from './old-session.js';

/** Records in the log: enough that its outline (seconds, a slice at a time) is still being read after a call. */
const RECORDS = 400_000;

test('a session log whose opening failed midway is opened again by the next call', async () => {
  const { stateDir, log: main, bytes: original } = oldSession(RECORDS);

  const host = await startHost('snapshots', { stateDir, sessionId: 'big' });
  assert.equal((await host.call('waits', { seconds: 0 })).status, 'ok');
  // The outline goes on reading the file it opened; opening the log to append then finds a directory.
  const aside = join(stateDir, 'aside');
  renameSync(main, aside);
  mkdirSync(main);
  const failed = (): boolean => host.sessionLogWarnings().some((warning) => warning.includes('EISDIR'));
  assert.ok(await eventually(failed, 60_000), `the opening failed: ${host.sessionLogWarnings().join('\n')}`);
  const warnings = host.sessionLogWarnings().join('\n');
  assert.ok(warnings.includes(`the session log cannot be opened in ${stateDir} (EISDIR)`), warnings);
  assert.equal(host.stats().sessionLogFailures, 1);

  rmdirSync(main);
  renameSync(aside, main);
  const later = [];
  for (let i = 0; i < 2; i++) later.push((await host.call('waits', { seconds: 0 })).callId);
  const written = original.length;
  assert.ok(await eventually(() => statSync(main).size > written, 60_000), 'the later calls were written');
  await host.close();
  assert.equal(host.stats().sessionLogFailures, 1);
  // Reading all of it back takes seconds: the calls' records are read from what was appended, in a log of their own.
  const after = readFileSync(main);
  assert.ok(after.subarray(0, written).equals(original), 'what the log held stays');
  writeFileSync(sessionLogPath(stateDir, 'appended'), after.subarray(written));
  const appended = readSession(stateDir, 'appended');
  assert.deepEqual(appended.warnings, []);
  assert.deepEqual(
    appended.records.map((record) => record.callId),
    later,
  );
});
