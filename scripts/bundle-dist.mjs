// Bundles what the `moonpool` command and each of its workers load at start into a few files, in
// place of tsc's output, so that Node resolves and reads a handful of files instead of a hundred
// in the main thread and again in every worker (docs/decisions.md, "Start-up and worker memory"):
// - dist/ui/cli.js: ESM; each command's own modules (and ajv, loaded beside the inspect worker)
//   are chunks beside it, still loaded only when needed;
// - dist/workers/lua-worker-entry.cjs: CommonJS, the whole worker (no ES module loader in it).
// The library (dist/core/index.js) stays unbundled and starts the bundled worker too. A plain
// `tsc` run writes the unbundled files back, which run as well: never a stale bundle.
// Every module keeps its own import.meta.url, so paths it finds relative to itself still resolve.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

/** Packages left to Node: they find their own files (piscina's worker, blessed's terminfo, wasmoon's .wasm) beside their code. */
const EXTERNAL = ['piscina', 'wasmoon', 'blessed', '@modelcontextprotocol/sdk'];

/**
 * Rewrites `import.meta.url` in each bundled module to the URL of the file tsc wrote for it,
 * computed from the bundle's own location (every output of one build sits in `outputDir`).
 */
function importMetaUrl(outputDir, format) {
  const bundleUrl = format === 'esm' ? 'import.meta.url' : 'require("node:url").pathToFileURL(__filename)';
  return {
    name: 'import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const path = relative(outputDir, args.path).split(sep).join('/');
        return { contents: source.replaceAll('import.meta.url', `new URL(${JSON.stringify(path)}, ${bundleUrl}).href`), loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
}

/** Bundles the CLI and the worker under `outDir` (tsc's output), with the esbuild installed in `root`. */
export async function bundleDist(root, outDir) {
  const esbuild = createRequire(join(root, 'package.json'))('esbuild');
  const common = { bundle: true, platform: 'node', target: 'node20', external: EXTERNAL, allowOverwrite: true, sourcemap: 'linked', logLevel: 'warning', logOverride: { 'empty-import-meta': 'error' } };
  const cliDir = join(outDir, 'ui');
  await esbuild.build({
    ...common,
    entryPoints: [join(cliDir, 'cli.js')],
    format: 'esm',
    splitting: true,
    outdir: cliDir,
    entryNames: '[name]',
    // Beside cli.js (one directory, see importMetaUrl); a hash in the name keeps them apart from tsc's files.
    chunkNames: 'cli-[name]-[hash]',
    plugins: [importMetaUrl(cliDir, 'esm')],
  });
  const workerEntry = join(outDir, 'workers', 'lua-worker-entry.cjs');
  await esbuild.build({ ...common, entryPoints: [workerEntry], format: 'cjs', outfile: workerEntry, plugins: [importMetaUrl(dirname(workerEntry), 'cjs')] });
}
