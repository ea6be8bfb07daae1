// Builds dist/ with tsc unless it was built from exactly the sources there are now: a hash of every
// compiled source, tsconfig.json and the TypeScript version, not file times (an edit that keeps an
// old mtime still rebuilds). After a build, outputs whose source is gone are removed, so a deleted
// test or module never runs from a stale dist/. Usage: node scripts/build-if-stale.mjs [ROOT]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const SOURCE = /\.(c|m)?ts$/;
const OUTPUT = /\.(c|m)?js(\.map)?$|\.d\.(c|m)?ts(\.map)?$/;
const STAMP = '.build-stamp';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
const outDir = join(root, tsconfig.compilerOptions.outDir);
const rootDir = join(root, tsconfig.compilerOptions.rootDir ?? '.');
const typescript = join(root, 'node_modules', 'typescript');

function filesUnder(dir, pattern) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function sources() {
  return tsconfig.include.flatMap((dir) => filesUnder(join(root, dir), SOURCE)).filter((file) => !file.endsWith('.d.ts'));
}

function sourcesHash() {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(typescript, 'package.json')));
  hash.update(readFileSync(join(root, 'tsconfig.json')));
  for (const file of sources()) hash.update(`\0${relative(root, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

/** The source an output was compiled from, as a path without extension (`dist/ui/cli.js` → `ui/cli`). */
function sourceStem(output) {
  return join(rootDir, relative(outDir, output)).replace(OUTPUT, '');
}

function removeOrphans() {
  const stems = new Set(sources().map((file) => file.replace(SOURCE, '')));
  for (const output of filesUnder(outDir, OUTPUT)) {
    if (!stems.has(sourceStem(output))) rmSync(output);
  }
}

const stampFile = join(outDir, STAMP);
const wanted = sourcesHash();
if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === wanted) process.exit(0);
rmSync(stampFile, { force: true });
const tsc = spawnSync(process.execPath, [join(typescript, 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
removeOrphans();
// The hash taken before compiling: an edit made while tsc ran is built next time.
writeFileSync(stampFile, wanted);
