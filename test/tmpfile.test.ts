// io.tmpfile leaves nothing in the temp directory, as C's tmpfile: whether the tool closes the
// handle, keeps it open past the call, fails or times out with it open.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { FIXTURES, ROOT, tempDir } from './helpers.js';

test('io.tmpfile leaves no file behind, however the call ends', () => {
  const temp = tempDir();
  const library = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;
  const options = { config: join(FIXTURES, 'tmpfiles.lua'), stateDir: tempDir() };
  const script = [
    `const { ToolHost } = await import(${JSON.stringify(library)});`,
    `const host = await ToolHost.start(${JSON.stringify(options)});`,
    'const results = [];',
    "for (const tool of ['round_trip', 'kept_open', 'failing', 'spinning'])",
    '  results.push(`${tool}: ${(await host.call(tool, {})).status}`);',
    'await host.close();',
    "process.stdout.write(results.join('\\n'));",
  ].join('\n');
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, TMPDIR: temp },
    timeout: 60_000,
  });
  assert.equal(child.stdout, 'round_trip: ok\nkept_open: ok\nfailing: error\nspinning: timeout', child.stderr);
  assert.deepEqual(readdirSync(temp), []);
});
