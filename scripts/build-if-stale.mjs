// Builds dist/ with tsc unless it was built from exactly the sources there are now: a hash of every
// compiled source, tsconfig.json and the TypeScript version, not file times (an edit that keeps an
// old mtime still rebuilds), and every source's output still there. After a build, outputs whose
// source is gone are removed, so a deleted test or module never runs from a stale dist/; a source
// edited while tsc ran leaves no stamp, so the next run builds again. A project with a bundle step
// (scripts/bundle-dist.mjs) is bundled after tsc; the step and the lockfile count as sources.
// A build says on stderr that it is building, and why; an up-to-date tree prints nothing.
// Usage: node scripts/build-if-stale.mjs [ROOT]
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const SOURCE = /\.(c|m)?ts$/;
/** An output and the extension of the source it comes from: `.cjs` and `.d.cts` from `.cts`, … */
const OUTPUT = /(?:\.d)?\.([cm]?)[jt]s(?:\.map)?$/;
const STAMP = '.build-stamp';

const root = resolve(process.argv[2] ?? join(import.meta.dirname, '..'));
const tsconfig = readTsconfig();
const outDir = join(root, tsconfig.compilerOptions.outDir);
const rootDir = join(root, tsconfig.compilerOptions.rootDir ?? '.');
const typescript = join(root, 'node_modules', 'typescript');
const bundler = join(root, 'scripts', 'bundle-dist.mjs');
/**
 * What a bundle is made of besides dist/: the build's scripts, every dependency's version, and the
 * Lua prelude the step compiles (workers/lua).
 */
const bundleInputs = existsSync(bundler)
  ? [
      ...filesUnder(join(root, 'scripts'), /\.mjs$/),
      join(root, 'package-lock.json'),
      ...filesUnder(join(root, 'workers', 'lua'), /\.lua$/),
    ]
  : [];

/** tsconfig.json as this script reads it: plain JSON whose `include` names directories. */
function readTsconfig() {
  const fail = (why) => {
    process.stderr.write(`build-if-stale: ${join(root, 'tsconfig.json')} ${why}; run tsc -p tsconfig.json directly\n`);
    process.exit(2);
  };
  let config;
  try {
    config = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  } catch (error) {
    return fail(`is not plain JSON (${error.message})`);
  }
  if (config.extends !== undefined || config.files !== undefined)
    fail('uses extends or files, which this script does not follow');
  if (!Array.isArray(config.include) || config.include.some((entry) => /[*?{}[\]]/.test(entry)))
    fail('must list plain directories in include');
  if (typeof config.compilerOptions?.outDir !== 'string') fail('names no compilerOptions.outDir');
  return config;
}
function filesUnder(dir, pattern) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function sources() {
  return tsconfig.include
    .flatMap((dir) => filesUnder(join(root, dir), SOURCE))
    .filter((file) => !file.endsWith('.d.ts'));
}

function sourcesHash() {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(typescript, 'package.json')));
  hash.update(readFileSync(join(root, 'tsconfig.json')));
  for (const file of [...sources(), ...bundleInputs])
    hash.update(`\0${relative(root, file)}\0`).update(readFileSync(file));
  return hash.digest('hex');
}

/** The source an output was compiled from (`dist/ui/cli.js` → `ui/cli.ts`, `x.d.cts` → `x.cts`). */
function sourceOf(output) {
  return join(rootDir, relative(outDir, output)).replace(OUTPUT, (_, kind) => `.${kind}ts`);
}

/** The JavaScript tsc writes for a source (`ui/cli.ts` → `dist/ui/cli.js`). */
function outputOf(source) {
  return join(outDir, relative(rootDir, source)).replace(SOURCE, (extension) => extension.replace('ts', 'js'));
}

function removeOrphans() {
  const known = new Set(sources());
  for (const output of filesUnder(outDir, OUTPUT)) {
    if (!known.has(sourceOf(output))) rmSync(output);
  }
}

const stampFile = join(outDir, STAMP);
const wanted = sourcesHash();
const upToDate =
  existsSync(stampFile) &&
  readFileSync(stampFile, 'utf8') === wanted &&
  sources().every((source) => existsSync(outputOf(source)));
if (upToDate) process.exit(0);
// tsc says nothing while it works: a first build would be half a minute of silence.
const first = !existsSync(outDir);
process.stderr.write(
  `build-if-stale: building ${relative(process.cwd(), outDir) || outDir} (${first ? 'the first build takes about half a minute' : 'the sources changed since the last build'})\n`,
);
rmSync(stampFile, { force: true });
const tsc = spawnSync(process.execPath, [join(typescript, 'bin', 'tsc'), '-p', join(root, 'tsconfig.json')], {
  stdio: 'inherit',
});
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
removeOrphans();
if (bundleInputs.length > 0) await (await import(pathToFileURL(bundler).href)).bundleDist(root, outDir);
// Stamped only if no source changed while tsc ran: what it compiled is then what the hash says.
if (sourcesHash() === wanted) writeFileSync(stampFile, wanted);
