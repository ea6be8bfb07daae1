// The C standard streams of the WebAssembly build are out of a tool's reach: what reaches them is
// buffered by emscripten in the worker's JavaScript heap, uncounted by the Lua heap's cap, without
// bound and for the worker's life. liolib's streams are not in the registry, and `debug.debug`
// prompts on the call's log.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const dir = join(tempDir(), 'cfg');
mkdirSync(dir);
writeFileSync(
  join(dir, 'init.lua'),
  `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'registry_streams', description = "Looks for liolib's streams.", permissions = {},
    run = function()
      local found = debug.getregistry()
      return type(found._IO_input) .. ' ' .. type(found._IO_output) .. ' ' .. type(found['FILE*'])
    end,
  }
  registry:add {
    name = 'debugger', description = 'Enters debug.debug.', permissions = {},
    run = function()
      debug.debug()
      return 'returned'
    end,
  }
end)
`,
);
const host = await startHost(join(dir, 'init.lua'));

test("liolib's C stdin, stdout and FILE* methods are not in the registry", async () => {
  const result = await host.call('registry_streams', {});
  assert.deepEqual([result.status, result.content], ['ok', 'nil nil nil']);
});

test("debug.debug prompts on the call's log and returns, as natively with stdin at its end", async () => {
  const logs: string[] = [];
  const result = await host.call('debugger', {}, { onLog: (text) => logs.push(text) });
  assert.deepEqual([result.status, result.content], ['ok', 'returned']);
  assert.deepEqual(logs, ['lua_debug> ']);
});
