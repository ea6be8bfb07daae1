// A session log holding a large damaged stretch (many fake record headers, each claiming a megabyte
// to checksum): the search for the next record is made a MiB at a time, with turns between, so the
// event loop keeps turning and an abort is heard while the damage is searched. The stretch took
// the host's thread for a second and more in one go before; each bound is relative to the read's
// own length, so a fast or a loaded machine measures the same thing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolHost } from '../core/index.js';
import { eventually, stallsDuring, startHost } from './helpers.js';
import { OLD_CALL_FRAME, oldSession } from './old-session.js';

/** Bytes of fake headers after the log's records. */
const DAMAGE_BYTES = 100 * 1024 * 1024;
/** A fake header every this many bytes, claiming FAKE_LENGTH bytes of payload. */
const FAKE_EVERY = 64;
const FAKE_LENGTH = 1_000_000;

function damagedState(): string {
  const fake = Buffer.alloc(FAKE_EVERY);
  OLD_CALL_FRAME.copy(fake, 0, 0, 4);
  fake.writeUInt32LE(FAKE_LENGTH, 4);
  return oldSession(10, Buffer.concat(Array.from({ length: DAMAGE_BYTES / FAKE_EVERY }, () => fake))).stateDir;
}

async function readAll(host: ToolHost, signal?: AbortSignal): Promise<{ records: number; warnings: string[] }> {
  let records = 0;
  const warnings: string[] = [];
  for await (const entry of host.sessionEntries('big', signal ? { signal } : {})) {
    if ('record' in entry) records++;
    else warnings.push(entry.warning);
  }
  return { records, warnings };
}

test('reading a session with a large damaged stretch lets the event loop turn and hears an abort', async () => {
  const host = await startHost('snapshots', { stateDir: damagedState() });
  let read: { records: number; warnings: string[] } | undefined;
  const whole = await stallsDuring(async () => (read = await readAll(host)));
  assert.equal(read!.records, 10);
  assert.equal(read!.warnings.length, 1);
  assert.match(read!.warnings[0]!, /skipped 104857600 bytes at offset \d+: a record whose checksum/);
  const stall = Math.round(whole.stallMs);
  assert.ok(
    whole.stallMs < whole.elapsedMs / 4,
    `the event loop stalled ${stall} of ${Math.round(whole.elapsedMs)} ms`,
  );

  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const aborted = await stallsDuring(() => readAll(host, controller.signal));
  const ms = Math.round(aborted.elapsedMs);
  assert.ok(aborted.elapsedMs < whole.elapsedMs / 2, `aborted after 20 ms, the read ended at ${ms} ms`);
});

test('the first call on a resumed session whose log holds a large damaged stretch leaves the event loop turning', async () => {
  const host = await startHost('snapshots', { stateDir: damagedState(), sessionId: 'big' });
  const opening = await stallsDuring(async () => {
    assert.equal((await host.call('waits', { seconds: 0 })).status, 'ok');
    // Opened: the damage is kept, and this host writes beside the log.
    assert.ok(await eventually(() => host.sessionLogWarnings().length > 0, 60_000), 'the log opened');
  });
  assert.match(host.sessionLogWarnings().join('\n'), /104857600 bytes after its last intact record/);
  const stall = Math.round(opening.stallMs);
  const elapsed = Math.round(opening.elapsedMs);
  assert.ok(opening.stallMs < opening.elapsedMs / 4, `the event loop stalled ${stall} of ${elapsed} ms`);
});
