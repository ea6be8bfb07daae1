// A call moonpool itself failed to run (arguments structured clone refuses, a signal whose getter
// throws) is recorded in the session log like any other, its arguments as `$notRecorded` when
// they cannot be copied; with no log to write to, it counts as a lost record.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

/** A caller's signal that cannot be read. */
const brokenSignal = {
  get aborted(): boolean {
    throw new Error('signal getter');
  },
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
} as unknown as AbortSignal;

test('calls moonpool failed to run are recorded, their uncopyable arguments as not recorded', async () => {
  const host = await startHost('hostile-args');
  const fine = await host.call('healthy', { n: 1 });
  const uncopyable = await host.call('healthy', { n: 2, callback: () => 1 });
  const unreadable = await host.call('healthy', { n: 3 }, { signal: brokenSignal });
  assert.equal(fine.status, 'ok', fine.content);
  assert.match(uncopyable.content, /^healthy: moonpool failed to run the call: .*could not be cloned/);
  assert.equal(unreadable.content, 'healthy: moonpool failed to run the call: signal getter');
  await host.close();
  const records = host.resume().records.map(({ callId, status, args }) => ({ callId, status, args }));
  assert.deepEqual(records, [
    { callId: fine.callId, status: 'ok', args: { n: 1 } },
    { callId: uncopyable.callId, status: 'error', args: { $notRecorded: 'structured clone refused them' } },
    { callId: unreadable.callId, status: 'error', args: { n: 3 } },
  ]);
  assert.equal(host.stats().sessionLogFailures, 0);
});

test('a call moonpool failed to run, with no session log to write to, counts as a lost record', async () => {
  const file = join(tempDir(), 'not-a-dir');
  writeFileSync(file, 'x');
  const host = await startHost('hostile-args', { stateDir: file });
  const result = await host.call('healthy', { n: 1 }, { signal: brokenSignal });
  assert.equal(result.status, 'error', result.content);
  assert.equal(host.stats().sessionLogFailures, 1);
});
