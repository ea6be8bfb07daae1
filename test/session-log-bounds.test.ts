// Reading a session log costs time linear in its size and memory bounded by its largest record,
// whatever it holds: bad frames that each claim the rest of the file, a record with tens of
// thousands of `dropped` lines, a record of millions of empty maps. Complexity is checked by how the
// time grows with the input (eight times the input may not take thirty times as long), never by a
// fixed bound.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { summarizeSessions } from '../core/index.js';
import { encodeMsgpack } from '../core/msgpack-codec.js';
import {
  encodeRecord,
  framed,
  readSession,
  SessionLog,
  sessionLogPath,
  type SessionRecord,
} from '../core/session-log.js';
import { CLI, tempDir } from './helpers.js';

const record = (id: string, extra: Partial<SessionRecord> = {}): SessionRecord => ({
  callId: id,
  tool: 'demo',
  args: {},
  status: 'ok',
  content: `result ${id}`,
  durationMs: 1,
  finishedAt: Date.UTC(2026, 0, 1),
  ...extra,
});

/** The CPU time `work` takes (ms): unlike wall time, not stretched by other processes on the machine. */
function cpuMs(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

/**
 * How much longer `work` takes on an input eight times as large: about 8 when linear, 64 when
 * quadratic. The two sizes run in turns, seven times each, and the shortest CPU time of each counts.
 */
function growth(make: (scale: number) => () => void): number {
  const small = make(1);
  const large = make(8);
  const times = { small: [] as number[], large: [] as number[] };
  for (let run = 0; run < 8; run++) {
    times.small.push(cpuMs(small));
    times.large.push(cpuMs(large));
  }
  // The first turn of each warms up; a floor of a millisecond keeps a tiny time's noise from passing for growth.
  return Math.max(Math.min(...times.large.slice(1)), 1) / Math.max(Math.min(...times.small.slice(1)), 1);
}

function writeLog(stateDir: string, id: string, bytes: Buffer): void {
  mkdirSync(join(stateDir, 'sessions'), { recursive: true });
  writeFileSync(sessionLogPath(stateDir, id), bytes);
}

/** Headers only, each claiming the rest of the file as its payload, none with a matching checksum. */
function badFrames(bytes: number): Buffer {
  const data = Buffer.alloc(bytes);
  for (let at = 0; at + 12 <= bytes; at += 12) {
    data.write('MPR1', at, 'latin1');
    data.writeUInt32LE(bytes - at - 12, at + 4);
    data.writeUInt32LE(0, at + 8);
  }
  return data;
}

test('a log of bad frames that each claim the rest of the file is skipped in linear time', () => {
  const stateDir = tempDir();
  const ratio = growth((scale) => {
    writeLog(stateDir, `bad-${scale}`, badFrames(scale * 48 * 1024));
    return () => {
      const readout = readSession(stateDir, `bad-${scale}`);
      assert.equal(readout.records.length, 0);
      assert.match(readout.warnings[0] ?? '', /checksum does not match/);
    };
  });
  assert.ok(ratio < 30, `eight times the bad frames took ${ratio.toFixed(1)} times as long`);
});

test('a stray byte after every record costs about nothing: the log reads as fast as without them', () => {
  const stateDir = tempDir();
  const records = Array.from({ length: 8000 }, (_, i) => encodeRecord(record(`r${i}`)));
  writeLog(stateDir, 'clean', Buffer.concat(records));
  writeLog(stateDir, 'stray', Buffer.concat(records.flatMap((frame) => [frame, Buffer.from('!')])));
  const fastest = (id: string): number => {
    const times = Array.from({ length: 4 }, () =>
      cpuMs(() => assert.equal(readSession(stateDir, id).records.length, records.length)),
    );
    return Math.max(Math.min(...times), 1);
  };
  const clean = fastest('clean');
  const stray = fastest('stray');
  // Each damaged place once read up to a megabyte ahead: six times as long here, forty times on a 6 MB log.
  assert.ok(stray < 3 * clean, `the damaged log took ${stray.toFixed(0)} ms, the clean one ${clean.toFixed(0)} ms`);
});

test('damage is skipped and the intact records around it are read', () => {
  const stateDir = tempDir();
  writeLog(
    stateDir,
    'around',
    Buffer.concat([encodeRecord(record('before')), badFrames(4096), encodeRecord(record('after'))]),
  );
  const readout = readSession(stateDir, 'around');
  assert.deepEqual(
    readout.records.map((entry) => entry.callId),
    ['before', 'after'],
  );
  assert.match(readout.warnings.join('\n'), /skipped \d+ bytes at offset \d+/);
  writeLog(
    stateDir,
    'garbage',
    Buffer.concat([
      encodeRecord(record('first')),
      Buffer.from('MPR1 and garbage MPR1'),
      encodeRecord(record('second')),
    ]),
  );
  assert.deepEqual(
    readSession(stateDir, 'garbage').records.map((entry) => entry.callId),
    ['first', 'second'],
  );
});

test('listing a session whose record left out tens of thousands of lines costs time linear in them', () => {
  const stateDir = tempDir();
  const ratio = growth((scale) => {
    const dir = join(stateDir, `dropped-${scale}`);
    const dropped = Array.from({ length: scale * 10_000 }, (_, index) => `line ${index} left out`);
    writeLog(dir, 'many', encodeRecord(record('noted', { dropped })));
    return () => {
      const [summary] = summarizeSessions(dir);
      assert.equal(summary?.calls, 1);
      assert.deepEqual(summary?.problems, []);
    };
  });
  assert.ok(ratio < 30, `eight times the lines took ${ratio.toFixed(1)} times as long`);
});

test('a record of millions of empty maps is skipped with a warning, under a small heap, and the records around it are read', () => {
  const stateDir = tempDir();
  const count = 8 * 1024 * 1024;
  // A record whose arguments are millions of empty maps: a map of seven fields, the last `args`.
  const fields = encodeMsgpack({
    callId: 'maps',
    tool: 'demo',
    status: 'ok',
    content: '',
    durationMs: 1,
    finishedAt: 1,
  });
  assert.equal(fields[0], 0x86);
  const args = Buffer.alloc(5 + 5 + count, 0x80);
  args.write('\xa4args', 0, 'latin1');
  args[5] = 0xdd;
  args.writeUInt32BE(count, 6);
  const payload = Buffer.concat([Buffer.from([0x87]), fields.subarray(1), args]);
  writeFileSync(join(stateDir, 'init.lua'), "agent.on('discover_tools', function(registry) end)\n");
  writeLog(
    stateDir,
    'maps',
    Buffer.concat([encodeRecord(record('before')), framed(payload), encodeRecord(record('after'))]),
  );
  const env = {
    ...process.env,
    MOONPOOL_CONFIG: '',
    MOONPOOL_KEEP_SESSIONS: '',
    NODE_OPTIONS: '--max-old-space-size=128',
  };
  const replay = spawnSync(
    process.execPath,
    [CLI, 'replay', 'maps', '--state-dir', stateDir, '--config', join(stateDir, 'init.lua')],
    { encoding: 'utf8', env },
  );
  assert.equal(replay.status, 0, replay.stderr);
  assert.match(replay.stdout, /result before[\s\S]*result after/);
  assert.match(replay.stderr, /more than \d+ values, a map or array counting as 8/);
  const listed = spawnSync(process.execPath, [CLI, 'sessions', '--state-dir', stateDir], { encoding: 'utf8', env });
  assert.equal(listed.status, 0, listed.stderr);
  // Listing reads no body: it counts the record it cannot decode.
  assert.match(listed.stdout, /^maps .* 3 calls/m);
});

test('a record with a 16 MiB key of bytes that are not UTF-8 is skipped undecoded, under a small heap', () => {
  const stateDir = tempDir();
  const keyBytes = 16 * 1024 * 1024;
  // A checksum-valid record of the right fields plus one more, keyed by 16 MiB of 0xff as `bin 32`.
  const fields = encodeMsgpack(record('binary-key'));
  assert.equal(fields[0], 0x87);
  const key = Buffer.alloc(5 + keyBytes, 0xff);
  key[0] = 0xc6;
  key.writeUInt32BE(keyBytes, 1);
  const payload = Buffer.concat([Buffer.from([0x88]), fields.subarray(1), key, Buffer.from([0xc0])]);
  writeFileSync(join(stateDir, 'init.lua'), "agent.on('discover_tools', function(registry) end)\n");
  writeLog(
    stateDir,
    'key',
    Buffer.concat([encodeRecord(record('before')), framed(payload), encodeRecord(record('after'))]),
  );
  const env = {
    ...process.env,
    MOONPOOL_CONFIG: '',
    MOONPOOL_KEEP_SESSIONS: '',
    NODE_OPTIONS: '--max-old-space-size=128',
  };
  const listed = spawnSync(process.execPath, [CLI, 'sessions', '--state-dir', stateDir], { encoding: 'utf8', env });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /^key .* 2 calls/m);
  assert.match(listed.stdout, /a key of type binary, not a field name/);
  const replay = spawnSync(
    process.execPath,
    [CLI, 'replay', 'key', '--state-dir', stateDir, '--config', join(stateDir, 'init.lua')],
    { encoding: 'utf8', env },
  );
  assert.equal(replay.status, 0, replay.stderr);
  assert.match(replay.stdout, /result before[\s\S]*result after/);
});

test('replaying a session far larger than the heap holds one record at a time, in the order the calls started', () => {
  const stateDir = tempDir();
  const calls = 1500;
  const log = SessionLog.open(stateDir, 'large');
  const blob = 'x'.repeat(64 * 1024);
  // Each odd call started before the even call logged ahead of it, as a long call overtaken by a short one.
  for (let i = 0; i < calls; i++)
    log.enqueue(record(String(i), { args: { blob }, durationMs: i % 2 === 1 ? 15 : 1, finishedAt: 1e12 + 10 * i }));
  log.close();
  writeFileSync(join(stateDir, 'init.lua'), "agent.on('discover_tools', function(registry) end)\n");
  // The log holds some 96 MiB of arguments; a replay holding every record does not fit in 40 MiB.
  const replay = spawnSync(
    process.execPath,
    [CLI, 'replay', 'large', '--state-dir', stateDir, '--config', join(stateDir, 'init.lua')],
    {
      encoding: 'utf8',
      env: { ...process.env, MOONPOOL_CONFIG: '', MOONPOOL_KEEP_SESSIONS: '', NODE_OPTIONS: '--max-old-space-size=40' },
    },
  );
  assert.equal(replay.status, 0, replay.stderr.slice(-2000));
  const shown = [...replay.stdout.matchAll(/result (\d+)/g)].map((match) => Number(match[1]));
  const started = Array.from({ length: calls }, (_, i) => (i % 2 === 0 ? i + 1 : i - 1));
  assert.deepEqual(shown, started);
});
