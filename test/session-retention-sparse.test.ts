// The size cap counts what sessions take on disk (cli.md: "its size on disk"; sessions.md: "when
// all of them together take more than 1 GiB, the oldest go"). A sparse file named like a session's
// log, 2 GiB long and holding no block, takes nothing: it must not make the cap remove a real
// session written moments before it.
import assert from 'node:assert/strict';
import { closeSync, existsSync, ftruncateSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pruneSessions, ToolHost } from '../core/index.js';
import { tempDir } from './helpers.js';

const CONFIG = `agent.on('discover_tools', function(registry)
  registry:add { name = 'hello', description = 'Says hello.', run = function() return 'hello' end }
end)
`;

test('a 2 GiB sparse file named like a log does not make the size cap remove a real session', async () => {
  const dir = tempDir();
  const stateDir = join(dir, 'state');
  writeFileSync(join(dir, 'init.lua'), CONFIG);
  const host = await ToolHost.start({ config: join(dir, 'init.lua'), stateDir, sessionId: 'real-session' });
  assert.equal((await host.call('hello', {})).content, 'hello');
  await host.close();
  const realLog = join(stateDir, 'sessions', 'real-session.log');
  assert.ok(existsSync(realLog));
  const sparse = openSync(join(stateDir, 'sessions', 'planted.log'), 'w');
  ftruncateSync(sparse, 2 * 2 ** 30);
  closeSync(sparse);
  const pruned = pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: 2 ** 30 }, undefined);
  assert.ok(existsSync(realLog), `the real session was removed: ${JSON.stringify(pruned)}`);
});
