// Bundles what the `moonpool` command and each of its workers load at start into a few files, in
// place of tsc's output, so that Node resolves and reads a handful of files instead of a hundred
// in the main thread and again in every worker (docs/decisions.md, "Start-up and worker memory"):
// - dist/ui/cli.js: ESM; each command's own modules (and ajv, loaded beside the inspect worker)
//   are chunks beside it, still loaded only when needed;
// - dist/workers/lua-worker-entry.cjs: CommonJS, the whole worker (no ES module loader in it);
// - dist/workers/lua/*.luac: the Lua prelude as bytecode (compile-prelude.mjs).
// The library (dist/core/index.js) stays unbundled and starts the bundled worker too. A plain
// `tsc` run writes the unbundled files back, which run as well: never a stale bundle.
// Every module keeps its own location (import.meta.url), so paths it finds relative to itself resolve.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { compilePrelude } from './compile-prelude.mjs';

/**
 * Packages left to Node: blessed, wasmoon and piscina find files beside their code (piscina starts
 * its own worker file, wherever npm put the package: hoisted in a project, nested in a global
 * install); the MCP SDK loads only for `mcp`.
 */
const EXTERNAL = ['wasmoon', 'blessed', 'piscina', '@modelcontextprotocol/sdk'];

/**
 * Rewrites `import.meta.url` in each bundled module to the URL of the file it was bundled from,
 * computed from the bundle's own location (every output of one build sits in `outputDir`); a
 * CommonJS module bundled into ES modules gets its own `__dirname` and `__filename` the same way
 * (a package that finds its files beside itself finds them).
 */
function ownLocation(outputDir, format) {
  // In ES module output, a constant from each output file's banner: `import.meta` in a CommonJS
  // module would make esbuild take it for an ES module.
  const bundleUrl = format === 'esm' ? 'moonpoolBundleUrl' : 'require("node:url").pathToFileURL(__filename)';
  return {
    name: 'own-location',
    setup(build) {
      build.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const usesFilePaths = format === 'esm' && /\b__(dirname|filename)\b/.test(source);
        if (!source.includes('import.meta.url') && !usesFilePaths) return undefined;
        const url = `new URL(${JSON.stringify(relative(outputDir, args.path).split(sep).join('/'))}, ${bundleUrl}).href`;
        const filePaths = usesFilePaths
          ? `var __filename = require("node:url").fileURLToPath(${url}), __dirname = require("node:path").dirname(__filename);\n`
          : '';
        return {
          contents: filePaths + source.replaceAll('import.meta.url', url),
          loader: 'js',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** Bundles the CLI and the worker under `outDir` (tsc's output), with the esbuild installed in `root`. */
export async function bundleDist(root, outDir) {
  const esbuild = createRequire(join(root, 'package.json'))('esbuild');
  const common = {
    bundle: true,
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    allowOverwrite: true,
    sourcemap: 'linked',
    logLevel: 'warning',
    logOverride: { 'empty-import-meta': 'error' },
  };
  const cliDir = join(outDir, 'ui');
  await esbuild.build({
    ...common,
    entryPoints: [join(cliDir, 'cli.js')],
    format: 'esm',
    splitting: true,
    outdir: cliDir,
    entryNames: '[name]',
    // Beside cli.js (one directory, see ownLocation); a hash in the name keeps them apart from tsc's files.
    chunkNames: 'cli-[name]-[hash]',
    // CommonJS code in the bundle may require() Node's built-ins; see ownLocation for the URL.
    banner: {
      js: "import { createRequire as createRequireInBundle } from 'node:module'; const require = createRequireInBundle(import.meta.url), moonpoolBundleUrl = import.meta.url;",
    },
    plugins: [ownLocation(cliDir, 'esm')],
  });
  const workerEntry = join(outDir, 'workers', 'lua-worker-entry.cjs');
  await esbuild.build({
    ...common,
    entryPoints: [workerEntry],
    format: 'cjs',
    outfile: workerEntry,
    plugins: [ownLocation(dirname(workerEntry), 'cjs')],
  });
  await compilePrelude(root, outDir);
}
