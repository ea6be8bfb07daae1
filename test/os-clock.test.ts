// os.clock stays right in a worker that has lived long: emscripten's `clock()` counts microseconds in
// 32 bits and stuck at -2147.48 once a worker was 35.8 minutes old. A preload moves the worker
// threads' Date.now a day on, at the moment the tool says so, as that much life would.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { ROOT, tempDir } from './helpers.js';

test('os.clock keeps counting seconds when the worker has lived more than 35.8 minutes', () => {
  const dir = tempDir();
  const flag = join(dir, 'a-day-later');
  const preload = join(dir, 'a-day-later.mjs');
  writeFileSync(
    preload,
    [
      "import { existsSync } from 'node:fs';",
      "import { isMainThread } from 'node:worker_threads';",
      'const realNow = Date.now.bind(Date);',
      `if (!isMainThread) Date.now = () => realNow() + (existsSync(${JSON.stringify(flag)}) ? 86_400_000 : 0);`,
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'init.lua'),
    `agent.on('discover_tools', function(registry)
  registry:add { name = 'clock', description = 'os.clock before and after a day passes.', run = function()
    local before = os.clock()
    io.open(${JSON.stringify(flag)}, 'w'):close()
    local after = os.clock()
    return ('%s %s %.6f'):format(math.type(after), after >= before and after - before < 60, after)
  end }
end)
`,
  );
  const library = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;
  const options = { config: join(dir, 'init.lua'), stateDir: join(dir, 'state') };
  const script = [
    `const { ToolHost } = await import(${JSON.stringify(library)});`,
    `const host = await ToolHost.start(${JSON.stringify(options)});`,
    "const result = await host.call('clock', {});",
    'await host.close();',
    'process.stdout.write(result.content);',
  ].join('\n');
  const main = join(dir, 'main.mjs');
  writeFileSync(main, script);
  const child = spawnSync(process.execPath, ['--import', pathToFileURL(preload).href, main], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.match(child.stdout, /^float true \d+\.\d{6}$/, `${child.stdout}\n${child.stderr}`);
});
