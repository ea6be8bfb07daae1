// A worker whose own load of the config fails (a file it reads at load time is briefly missing
// or being rewritten) answers the call with the load's error, file:line included, and the next
// call loads the config into a fresh Lua state instead of failing the same way on that worker.
import assert from 'node:assert/strict';
import { realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const dir = realpathSync(tempDir('moonpool-worker-load-fails-'));
const flag = join(dir, 'being-rewritten');
const config = join(dir, 'init.lua');
writeFileSync(
  config,
  `local flag = io.open(${JSON.stringify(flag)})
if flag then
  flag:close()
  error('the settings file is being rewritten')
end
agent.on('discover_tools', function(registry)
  registry:add { name = 'hello', description = 'x', run = function() return 'hello' end }
end)
`,
);

test('a worker whose load of the config failed says why, and the next call loads it afresh', async () => {
  const host = await startHost(config, { maxThreadsPerModule: 1 });
  writeFileSync(flag, '');
  const failed = await host.call('hello', {});
  assert.equal(failed.status, 'error');
  assert.match(failed.content, /^hello: the config failed to load in the worker/);
  assert.ok(failed.content.endsWith(`: ${config}:4: the settings file is being rewritten`), failed.content);
  rmSync(flag);
  const loaded = await host.call('hello', {});
  assert.deepEqual([loaded.status, loaded.content], ['ok', 'hello']);
  assert.equal(host.stats().modules[config]?.crashes, 0);
});
