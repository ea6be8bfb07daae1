// Workers load through import(), never through require() of the ES module: Node aborts the whole
// process (a failed CHECK in CreateRequiredModuleFacade) when a worker is terminated while
// require() loads an ES module. The stress test terminates workers during their load hundreds of
// times beside healthy calls; `node dist/test/worker-churn.js DIR 5000 120` runs the heavy version.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { WORKER_ENTRY } from '../core/worker-pool.js';
import { FIXTURES, ROOT, tempDir } from './helpers.js';

/** What `require(file)` gives in a fresh process, and which of moonpool's ES modules it loaded on the way. */
function requireInChild(file: string): { type: string; esModules: string[]; trace: string } {
  const script = `
    const loaded = require(${JSON.stringify(file)});
    const esModules = Object.keys(require.cache).filter((path) => path.includes('/dist/') && path.endsWith('.js'));
    process.stdout.write(JSON.stringify({ type: typeof loaded, esModules }));
  `;
  const run = spawnSync(process.execPath, ['--trace-require-module=all', '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return { ...(JSON.parse(run.stdout) as { type: string; esModules: string[] }), trace: run.stderr };
}

test("the file a worker starts from is CommonJS: Node's require(esm) path is never taken", () => {
  const entry = requireInChild(WORKER_ENTRY);
  assert.deepEqual([entry.type, entry.esModules], ['function', []]);
  assert.doesNotMatch(entry.trace, /using require\(\)/);
  // The control: require() of one of moonpool's ES modules takes that path, and it shows.
  const control = requireInChild(join(ROOT, 'dist', 'core', 'thread-watch.js'));
  assert.deepEqual(control.esModules, [join(ROOT, 'dist', 'core', 'thread-watch.js')]);
  assert.match(control.trace, /is loading ES Module .*thread-watch\.js using require\(\)/);
});

test('the CommonJS entry serves calls: the ES worker module loads through import()', { timeout: 60_000 }, () => {
  const index = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;
  const script = `
    const { ToolHost } = await import(${JSON.stringify(index)});
    const host = await ToolHost.start({ config: ${JSON.stringify(join(FIXTURES, 'faults', 'init.lua'))}, stateDir: ${JSON.stringify(tempDir())} });
    const result = await host.call('echo', { text: 'loaded' });
    await host.close();
    process.stdout.write(result.content);
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.stdout, 'loaded', run.stderr);
});

test('workers terminated again and again while they load never take the process down', { timeout: 120_000 }, () => {
  const run = spawnSync(process.execPath, [join(ROOT, 'dist', 'test', 'worker-churn.js'), tempDir(), '600', '40'], {
    encoding: 'utf8',
    timeout: 100_000,
  });
  assert.equal(run.signal, null, `the churn process died of ${run.signal}: ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  const summary = JSON.parse(run.stdout) as { calls: number; cancelled: number; healthy: number; wrong: number };
  assert.equal(summary.wrong, 0);
  assert.ok(summary.cancelled >= 100, `only ${summary.cancelled} calls were cancelled: ${run.stdout}`);
  assert.ok(summary.healthy >= 5, run.stdout);
});
