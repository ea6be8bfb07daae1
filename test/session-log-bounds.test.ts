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
import { crc32 } from 'node:zlib';
import { summarizeSessions } from '../core/index.js';
import { encodeRecord, readSessionLog, sessionLogPath, type SessionRecord } from '../core/session-log.js';
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

function writeLog(stateDir: string, id: string, bytes: Buffer): string {
  mkdirSync(join(stateDir, 'sessions'), { recursive: true });
  const path = sessionLogPath(stateDir, id);
  writeFileSync(path, bytes);
  return path;
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
    const path = writeLog(stateDir, `bad-${scale}`, badFrames(scale * 48 * 1024));
    return () => {
      const readout = readSessionLog(path);
      assert.equal(readout.records.length, 0);
      assert.match(readout.warnings[0] ?? '', /checksum does not match/);
    };
  });
  assert.ok(ratio < 30, `eight times the bad frames took ${ratio.toFixed(1)} times as long`);
});

test('damage is skipped and the intact records around it are read', () => {
  const stateDir = tempDir();
  const path = writeLog(
    stateDir,
    'around',
    Buffer.concat([encodeRecord(record('before')), badFrames(4096), encodeRecord(record('after'))]),
  );
  const readout = readSessionLog(path);
  assert.deepEqual(
    readout.records.map((entry) => entry.callId),
    ['before', 'after'],
  );
  assert.match(readout.warnings.join('\n'), /skipped \d+ bytes at offset \d+/);
  const small = writeLog(
    stateDir,
    'garbage',
    Buffer.concat([
      encodeRecord(record('first')),
      Buffer.from('MPR1 and garbage MPR1'),
      encodeRecord(record('second')),
    ]),
  );
  assert.deepEqual(
    readSessionLog(small).records.map((entry) => entry.callId),
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
  const payload = Buffer.alloc(5 + count, 0x80);
  payload[0] = 0xdd;
  payload.writeUInt32BE(count, 1);
  const header = Buffer.alloc(12);
  header.write('MPR1', 0, 'latin1');
  header.writeUInt32LE(payload.length, 4);
  header.writeUInt32LE(crc32(payload), 8);
  writeFileSync(join(stateDir, 'init.lua'), "agent.on('discover_tools', function(registry) end)\n");
  writeLog(
    stateDir,
    'maps',
    Buffer.concat([encodeRecord(record('before')), header, payload, encodeRecord(record('after'))]),
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
  assert.match(replay.stderr, /more than \d+ maps and arrays/);
  const listed = spawnSync(process.execPath, [CLI, 'sessions', '--state-dir', stateDir], { encoding: 'utf8', env });
  assert.equal(listed.status, 0, listed.stderr);
  assert.match(listed.stdout, /^maps .* 2 calls/m);
});
