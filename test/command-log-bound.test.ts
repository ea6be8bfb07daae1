// A command's stderr is part of its call's log, which is dropped past 1,000,000 characters
// (docs/limits.md, "Calls"). One line longer than a JavaScript string can hold (about 512 Mi
// characters) with no newline costs only its log past the bound: the call ends as ok, and the
// worker never holds more than a bound's worth of the line.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const root = tempDir('moonpool-log-');
mkdirSync(join(root, 'cfg'));
writeFileSync(
  join(root, 'cfg', 'init.lua'),
  `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'noisy', description = 'Writes 600 MB of NUL bytes, no newline, to stderr.', timeout = 600,
    run = function() return capture('head -c 600000000 /dev/zero >&2; echo done') end,
  }
end)
`,
);

test("a command's stderr of one line past a string's length ends the call as ok, its log cut", async () => {
  const host = await startHost(join(root, 'cfg', 'init.lua'));
  let logged = 0;
  const result = await host.call('noisy', {}, { onLog: (text) => (logged += text.length) });
  assert.equal(result.status, 'ok', result.content);
  assert.equal(result.content.trim(), 'done');
  assert.ok(logged <= 1_100_000, `${logged} characters of log reached the host`);
});
