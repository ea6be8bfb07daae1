// Opening a session's log to append cuts only what a write cut short can leave (sessions.md: "one
// record; more than that after the last intact record is left alone and the host writes a log of
// its own beside it"). A file named like the log that holds no record at all — text, or a format
// this version cannot read — is no torn write (that starts with a frame header): it must still be
// there, whole, after a host appended to the session.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolHost } from '../core/index.js';
import { tempDir } from './helpers.js';

const CONFIG = `agent.on('discover_tools', function(registry)
  registry:add { name = 'hello', description = 'Says hello.', run = function() return 'hello' end }
end)
`;

test('a 99,000-byte log holding no record is not cut when a host appends to its session', async () => {
  const dir = tempDir();
  const stateDir = join(dir, 'state');
  mkdirSync(join(stateDir, 'sessions'), { recursive: true });
  writeFileSync(join(dir, 'init.lua'), CONFIG);
  const log = join(stateDir, 'sessions', 'foreign.log');
  const planted = Buffer.from('MOONPOOL-V2 a record format this version cannot read\n'.repeat(1800));
  writeFileSync(log, planted);
  const host = await ToolHost.start({ config: join(dir, 'init.lua'), stateDir, sessionId: 'foreign' });
  assert.equal((await host.call('hello', {})).content, 'hello');
  const warnings = host.sessionLogWarnings();
  await host.close();
  const now = readFileSync(log);
  assert.ok(
    now.subarray(0, planted.length).equals(planted),
    `the planted bytes were cut: the file is ${now.length} bytes; warnings: ${JSON.stringify(warnings)}`,
  );
});
