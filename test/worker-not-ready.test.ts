// A call whose worker never finishes loading the config (a load that loops, or blocks, in that
// worker only) says so: its `run` never started, so it is not the tool's own timeout.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

test("a call whose worker's load of the config never ends is not reported as the tool's timeout", async () => {
  const dir = tempDir();
  const flag = join(dir, 'loop-at-load');
  writeFileSync(
    join(dir, 'init.lua'),
    `local f = io.open(${JSON.stringify(flag)})
if f then f:close(); while true do end end
agent.on('discover_tools', function(registry)
  registry:add { name = 'hello', description = 'Says hello.', timeout = 1, run = function() return 'hello' end }
end)
`,
  );
  // The host loads without the flag; the module worker, loading the config for the call, finds it.
  const host = await startHost(join(dir, 'init.lua'), { loadTimeoutMs: 1000 });
  writeFileSync(flag, '');
  const stuck = await host.call('hello', {});
  assert.equal(stuck.status, 'timeout', stuck.content);
  assert.equal(
    stuck.content,
    'hello: not run: its worker did not finish starting and loading the config within 2 s ' +
      '(an endless loop or a blocking read at load time?)',
  );
  rmSync(flag);
  const fine = await host.call('hello', {});
  assert.deepEqual([fine.status, fine.content], ['ok', 'hello']);
});
