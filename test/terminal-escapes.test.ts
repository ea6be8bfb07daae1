// What a tool or a log produced reaches the terminal without its escape sequences on every path:
// `call --json` (the lines the tool prints, on stderr), `list` (descriptions, `available` errors),
// `check` (prints while loading) and `replay` (a record whose status is not a status is damage,
// and a damaged duration shows as unknown, not `NaN s`).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { encodeMsgpack } from '../core/msgpack-codec.js';
import { encodeRecord, framed, sessionLogPath } from '../core/session-log.js';
import { CLI, FIXTURES, tempDir } from './helpers.js';

const CONFIG = join(FIXTURES, 'escapes', 'init.lua');

function moonpool(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    encoding: 'utf8',
    env: { ...process.env, MOONPOOL_CONFIG: '', MOONPOOL_KEEP_SESSIONS: '' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

// eslint-disable-next-line no-control-regex -- what must not reach the terminal
const ESCAPES = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

test('call --json: the lines the tool prints reach stderr without escapes', () => {
  const stateDir = tempDir();
  const run = moonpool(['call', 'shouts', '{}', '--json', '--config', CONFIG, '--state-dir', stateDir]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /printed .*line/);
  assert.doesNotMatch(run.stderr, ESCAPES);
});

test('list: descriptions and available() errors reach stdout without escapes', () => {
  const run = moonpool(['list', '--config', CONFIG, '--state-dir', tempDir()]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /shouts +Describes itself .*loudly\./);
  assert.match(run.stdout, /withheld +\(unavailable: .*not here .*today/);
  assert.doesNotMatch(run.stdout, ESCAPES);
});

test('check: what the config printed while loading reaches stderr without escapes', () => {
  const run = moonpool(['check', '--config', CONFIG, '--state-dir', tempDir()]);
  assert.match(run.stderr, /print: loading .*done/);
  assert.doesNotMatch(run.stderr, ESCAPES);
  assert.doesNotMatch(run.stdout, ESCAPES);
});

test('replay: a record whose status is not a status is skipped as damage; one with a damaged duration shows it unknown', () => {
  const stateDir = tempDir();
  mkdirSync(join(stateDir, 'sessions'));
  const base = { callId: 'c', tool: 'shouts', args: {}, content: 'text', finishedAt: Date.UTC(2026, 0, 1) };
  const payload = encodeMsgpack({ ...base, callId: 'hostile', status: '\u001b]2;pwned\u0007', durationMs: 1 });
  writeFileSync(
    sessionLogPath(stateDir, 'odd'),
    Buffer.concat([framed(payload), encodeRecord({ ...base, callId: 'nan', status: 'ok', durationMs: Number.NaN })]),
  );
  const run = moonpool(['replay', 'odd', '--config', CONFIG, '--state-dir', stateDir]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /its status .* is not a status/);
  assert.doesNotMatch(run.stdout + run.stderr, ESCAPES);
  assert.doesNotMatch(run.stdout, /NaN|undefined/);
  assert.match(run.stdout, /shouts .*\? s/);
});
