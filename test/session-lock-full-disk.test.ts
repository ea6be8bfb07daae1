// Taking a session's lock on a full disk fails, and the call goes on unrecorded (counted); what
// the attempt made must not stay behind. The lock is written to a file of its own first, then
// linked; on a full disk that file is created but its pid cannot be written, and it is left in
// sessions/, where retention never removes it (only a session's files go) and `moonpool sessions`
// lists a session of 0 calls for it: one more file each time a command starts on the full disk.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolHost } from '../core/index.js';
import { NO_SMALL_DISK, smallDisk, tempDir } from './helpers.js';

const CONFIG = `agent.on('discover_tools', function(registry)
  registry:add { name = 'hello', description = 'Says hello.', run = function() return 'hello' end }
end)
`;

test('a session lock that cannot be taken on a full disk leaves no file behind', async (t) => {
  const disk = smallDisk('64k');
  if (disk === undefined) return t.skip(NO_SMALL_DISK);
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), CONFIG);
  const stateDir = join(disk, 'state');
  const first = await ToolHost.start({ config: join(dir, 'init.lua'), stateDir });
  await first.close();
  try {
    writeFileSync(join(disk, 'filler'), Buffer.alloc(128 * 1024));
  } catch {
    // The disk is full now, which is the point.
  }
  const host = await ToolHost.start({ config: join(dir, 'init.lua'), stateDir, sessionId: 'full-disk' });
  assert.equal((await host.call('hello', {})).content, 'hello');
  await host.close();
  assert.ok(host.stats().sessionLogFailures >= 1, JSON.stringify(host.stats()));
  const left = readdirSync(join(stateDir, 'sessions')).filter((name) => name.startsWith('full-disk'));
  assert.deepEqual(left, []);
});
