// `npm start` and `npm test` build through scripts/build-if-stale.mjs: an unchanged tree is not
// rebuilt, any edit is (whatever its file time), and outputs of deleted sources are removed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, tempDir } from './helpers.js';

const SCRIPT = join(ROOT, 'scripts', 'build-if-stale.mjs');

function project(): string {
  const dir = tempDir();
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', outDir: 'dist', rootDir: '.', strict: true, types: [] },
      include: ['src'],
    }),
  );
  mkdirSync(join(dir, 'src', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a: number = 1;\n');
  writeFileSync(join(dir, 'src', 'sub', 'b.ts'), 'export const b: string = "b";\n');
  return dir;
}

function build(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

test('an unchanged tree is not rebuilt', { timeout: 60_000 }, () => {
  const dir = project();
  const first = build(dir);
  assert.equal(first.status, 0);
  assert.match(first.output, /^build-if-stale: building \S*dist \(the first build takes about half a minute\)\n$/);
  assert.match(readFileSync(join(dir, 'dist', 'src', 'a.js'), 'utf8'), /a = 1/);
  // Had tsc run again, it would have rewritten the output.
  writeFileSync(join(dir, 'dist', 'src', 'a.js'), 'untouched');
  assert.deepEqual(build(dir), { status: 0, output: '' });
  assert.equal(readFileSync(join(dir, 'dist', 'src', 'a.js'), 'utf8'), 'untouched');
});

test('an edit that keeps an old file time is rebuilt', { timeout: 60_000 }, () => {
  const dir = project();
  assert.equal(build(dir).status, 0);
  const source = join(dir, 'src', 'sub', 'b.ts');
  writeFileSync(source, 'export const b: string = "edited";\n');
  utimesSync(source, new Date(2001, 0, 1), new Date(2001, 0, 1));
  assert.equal(build(dir).status, 0);
  assert.match(readFileSync(join(dir, 'dist', 'src', 'sub', 'b.js'), 'utf8'), /edited/);
});

test('the outputs of a deleted source are removed at the next build', { timeout: 60_000 }, () => {
  const dir = project();
  assert.equal(build(dir).status, 0);
  assert.ok(existsSync(join(dir, 'dist', 'src', 'sub', 'b.js')));
  unlinkSync(join(dir, 'src', 'sub', 'b.ts'));
  assert.equal(build(dir).status, 0);
  assert.equal(existsSync(join(dir, 'dist', 'src', 'sub', 'b.js')), false);
  assert.ok(existsSync(join(dir, 'dist', 'src', 'a.js')));
});

test('a build that fails is tried again next time, not stamped as done', { timeout: 60_000 }, () => {
  const dir = project();
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a: number = "not a number";\n');
  const failed = build(dir);
  assert.notEqual(failed.status, 0);
  assert.match(failed.output, /src\/a\.ts/);
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a: number = 2;\n');
  assert.equal(build(dir).status, 0);
  assert.match(readFileSync(join(dir, 'dist', 'src', 'a.js'), 'utf8'), /a = 2/);
});

test('a source renamed to .mts leaves no output of its old name behind', { timeout: 60_000 }, () => {
  const dir = project();
  assert.equal(build(dir).status, 0);
  renameSync(join(dir, 'src', 'a.ts'), join(dir, 'src', 'a.mts'));
  assert.equal(build(dir).status, 0);
  assert.equal(existsSync(join(dir, 'dist', 'src', 'a.js')), false);
  assert.ok(existsSync(join(dir, 'dist', 'src', 'a.mjs')));
});

test('an output deleted from dist/ is built again', { timeout: 60_000 }, () => {
  const dir = project();
  assert.equal(build(dir).status, 0);
  rmSync(join(dir, 'dist', 'src', 'sub'), { recursive: true });
  assert.equal(build(dir).status, 0);
  assert.ok(existsSync(join(dir, 'dist', 'src', 'sub', 'b.js')));
});

test('a tsconfig.json it cannot follow is one line and exit 2, nothing removed', { timeout: 60_000 }, () => {
  const dir = project();
  assert.equal(build(dir).status, 0);
  for (const tsconfig of [
    '{ // a comment\n}',
    JSON.stringify({ compilerOptions: { outDir: 'dist' }, include: ['src/**/*'] }),
    JSON.stringify({ extends: './base.json', include: ['src'] }),
  ]) {
    writeFileSync(join(dir, 'tsconfig.json'), tsconfig);
    const run = build(dir);
    assert.equal(run.status, 2, tsconfig);
    assert.match(run.output, /^build-if-stale: .*tsconfig\.json .*; run tsc -p tsconfig\.json directly\n$/);
    assert.ok(existsSync(join(dir, 'dist', 'src', 'a.js')));
  }
});

test(
  'a source edited while tsc runs leaves no stamp: the next run builds what is there now',
  { timeout: 60_000 },
  () => {
    const dir = project();
    // A stand-in for tsc that compiles a.ts, then sees it edited before it exits.
    rmSync(join(dir, 'node_modules'));
    mkdirSync(join(dir, 'node_modules', 'typescript', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'node_modules', 'typescript', 'package.json'), '{"version":"0.0.0-test"}');
    writeFileSync(
      join(dir, 'node_modules', 'typescript', 'bin', 'tsc'),
      [
        "const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');",
        "const { join } = require('node:path');",
        "const root = process.argv[3].replace(/tsconfig\\.json$/, '');",
        "mkdirSync(join(root, 'dist', 'src', 'sub'), { recursive: true });",
        "for (const f of ['a', 'sub/b']) writeFileSync(join(root, 'dist', 'src', f + '.js'), readFileSync(join(root, 'src', f + '.ts')));",
        "writeFileSync(join(root, 'src', 'a.ts'), 'export const a: number = 3;\\n');",
      ].join('\n'),
    );
    assert.equal(build(dir).status, 0);
    assert.equal(existsSync(join(dir, 'dist', '.build-stamp')), false);
  },
);

/** A bundle step that writes `dist/bundle.txt`: the bundled output's text and `label`. */
function withBundleStep(dir: string, label: string): void {
  mkdirSync(join(dir, 'scripts'), { recursive: true });
  writeFileSync(join(dir, 'package-lock.json'), '{}');
  writeFileSync(
    join(dir, 'scripts', 'bundle-dist.mjs'),
    [
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "import { join } from 'node:path';",
      `export async function bundleDist(root, outDir) { writeFileSync(join(outDir, 'bundle.txt'), readFileSync(join(outDir, 'src', 'a.js'), 'utf8') + ${JSON.stringify(label)}); }`,
    ].join('\n'),
  );
}

test(
  'a project with a bundle step is bundled after tsc, and bundled again when only the step changes',
  { timeout: 60_000 },
  () => {
    const dir = project();
    withBundleStep(dir, 'first');
    assert.equal(build(dir).status, 0);
    assert.match(readFileSync(join(dir, 'dist', 'bundle.txt'), 'utf8'), /a = 1;[\s\S]*first$/);
    withBundleStep(dir, 'second');
    assert.equal(build(dir).status, 0);
    assert.match(readFileSync(join(dir, 'dist', 'bundle.txt'), 'utf8'), /second$/);
  },
);

test('a bundle step that fails leaves no stamp: the next run builds again', { timeout: 60_000 }, () => {
  const dir = project();
  withBundleStep(dir, 'first');
  writeFileSync(
    join(dir, 'scripts', 'bundle-dist.mjs'),
    "export async function bundleDist() { throw new Error('bundle failed'); }",
  );
  const failed = build(dir);
  assert.notEqual(failed.status, 0);
  assert.match(failed.output, /bundle failed/);
  assert.equal(existsSync(join(dir, 'dist', '.build-stamp')), false);
  withBundleStep(dir, 'fixed');
  assert.equal(build(dir).status, 0);
  assert.match(readFileSync(join(dir, 'dist', 'bundle.txt'), 'utf8'), /fixed$/);
});
