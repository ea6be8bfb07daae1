// Opening a session's log to append cuts only what a write cut short can leave (sessions.md: "one
// record; more than that after the last intact record is left alone and the host writes a log of
// its own beside it"). A file named like the log that holds no record at all — text, or a format
// this version cannot read — is no torn write (that starts with a frame header): it must still be
// there, whole, after a host appended to the session; nor is a whole record that does not check
// out (a flipped bit), which reading skips with a warning.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolHost } from '../core/index.js';
import { readSession, SessionLog, type SessionRecord } from '../core/session-log.js';
import { tempDir } from './helpers.js';

const CONFIG = `agent.on('discover_tools', function(registry)
  registry:add { name = 'hello', description = 'Says hello.', run = function() return 'hello' end }
end)
`;

test('a 99,000-byte log holding no record is not cut when a host appends to its session', async () => {
  const dir = tempDir();
  const stateDir = join(dir, 'state');
  mkdirSync(join(stateDir, 'sessions'), { recursive: true });
  writeFileSync(join(dir, 'init.lua'), CONFIG);
  const log = join(stateDir, 'sessions', 'foreign.log');
  const planted = Buffer.from('MOONPOOL-V2 a record format this version cannot read\n'.repeat(1800));
  writeFileSync(log, planted);
  const host = await ToolHost.start({ config: join(dir, 'init.lua'), stateDir, sessionId: 'foreign' });
  assert.equal((await host.call('hello', {})).content, 'hello');
  const warnings = host.sessionLogWarnings();
  await host.close();
  const now = readFileSync(log);
  assert.ok(
    now.subarray(0, planted.length).equals(planted),
    `the planted bytes were cut: the file is ${now.length} bytes; warnings: ${JSON.stringify(warnings)}`,
  );
});

const record = (i: number): SessionRecord => ({
  callId: `c${i}`,
  tool: 'hello',
  args: { i },
  status: 'ok',
  content: `hello ${i}`,
  durationMs: 1,
  finishedAt: 1_800_000_000_000 + i,
});

/** A log of `count` records, written and closed as a host leaves it. */
function writeLog(stateDir: string, id: string, count: number): string {
  const log = SessionLog.open(stateDir, id);
  for (let i = 1; i <= count; i++) log.append(record(i));
  log.close();
  return log.path;
}

test('a whole last record with a flipped bit is not cut: it stays, read with its warning', () => {
  const stateDir = tempDir();
  const path = writeLog(stateDir, 'flipped', 3);
  const bytes = readFileSync(path);
  bytes[bytes.length - 5]! ^= 0x01;
  writeFileSync(path, bytes);
  const log = SessionLog.open(stateDir, 'flipped');
  log.append(record(4));
  log.close();
  assert.match(log.warnings.join('\n'), /flipped\.log: \d+ bytes after its last intact record hold a whole record/);
  assert.ok(readFileSync(path).equals(bytes), 'the damaged log is left as it was');
  const { records, warnings } = readSession(stateDir, 'flipped');
  assert.deepEqual(
    records.map((entry) => entry.callId),
    ['c1', 'c2', 'c4'],
  );
  assert.match(warnings.join('\n'), /a record whose checksum does not match/);
});

test('damaged records after the last intact one are not cut, even when the first seems to run past the end', () => {
  const stateDir = tempDir();
  const path = writeLog(stateDir, 'garbled', 4);
  const bytes = readFileSync(path);
  const third = bytes.indexOf('MPR1', bytes.indexOf('MPR1', bytes.indexOf('MPR1') + 1) + 1);
  bytes.writeUInt32LE(0xffff, third + 4);
  bytes[bytes.length - 5]! ^= 0x01;
  writeFileSync(path, bytes);
  const log = SessionLog.open(stateDir, 'garbled');
  log.close();
  assert.match(log.warnings.join('\n'), /hold more than one record; it is not cut/);
  assert.ok(readFileSync(path).equals(bytes), 'the damaged log is left as it was');
});

test('a record cut short by a write is still cut when the log is opened', () => {
  const stateDir = tempDir();
  const path = writeLog(stateDir, 'torn', 3);
  const whole = statSync(path).size;
  truncateSync(path, whole - 5);
  const log = SessionLog.open(stateDir, 'torn');
  log.append(record(4));
  log.close();
  assert.equal(log.path, path, 'written to the log itself');
  const { records, warnings } = readSession(stateDir, 'torn');
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    records.map((entry) => entry.callId),
    ['c1', 'c2', 'c4'],
  );
});
