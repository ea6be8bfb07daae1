// `npm run conformance`: the runner runs each file of a suite natively and in moonpool as Lua's
// all.lua would, prints a table with times and first failures, and exits 1 when a file passes
// natively but fails in moonpool. Tried on a small suite of its own (test/fixtures/conformance-suite).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES, ROOT } from './helpers.js';

const RUNNER = join(ROOT, 'dist', 'conformance', 'run.js');
const SUITE = join(FIXTURES, 'conformance-suite');

function conformance(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [RUNNER, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, INIT_CWD: ROOT },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The table's row for `file`, split into its columns. */
function row(stdout: string, file: string): string[] {
  const line = stdout.split('\n').find((text) => text.startsWith(`${file} `));
  assert.ok(line, `no row for ${file} in:\n${stdout}`);
  return line.split(/\s{2,}/);
}

test('the runner tells each file natively and in moonpool apart and fails on a moonpool-only failure', () => {
  const run = conformance([SUITE]);
  assert.equal(run.code, 1, run.stderr);
  assert.deepEqual(
    row(run.stdout, 'harness_globals.lua').filter((cell) => !cell.endsWith(' s')),
    ['harness_globals.lua', 'pass', 'pass'],
  );
  assert.deepEqual(
    row(run.stdout, 'suite_helper.lua').filter((cell) => !cell.endsWith(' s')),
    ['suite_helper.lua', 'pass', 'pass'],
  );
  assert.deepEqual(
    row(run.stdout, 'fails_everywhere.lua').filter((cell) => !cell.endsWith(' s')),
    ['fails_everywhere.lua', 'FAIL', 'FAIL', 'fails_everywhere.lua:3 | fails_everywhere.lua:3'],
  );
  assert.deepEqual(
    row(run.stdout, 'fails_in_moonpool.lua').filter((cell) => !cell.endsWith(' s')),
    ['fails_in_moonpool.lua', 'pass', 'FAIL', '- | fails_in_moonpool.lua:4'],
  );
  assert.match(
    run.stdout,
    /fails_in_moonpool\.lua fails only in moonpool:\nerror: .*fails_in_moonpool\.lua:4: size_t is 4 bytes here/,
  );
  assert.match(run.stdout, /moonpool passes 2 of 4 files; native passes 3\.\n$/);
});

test('the runner exits 0 when every file passing natively passes in moonpool', () => {
  const run = conformance([SUITE, 'harness_globals.lua', 'fails_everywhere.lua']);
  assert.equal(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /moonpool passes 1 of 2 files; native passes 1\.\n$/);
});

test('the runner without a suite directory prints its usage and exits 2', () => {
  const run = conformance([]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /^usage: npm run conformance -- DIR/);
});
