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
  registry:add {
    name = 'blank', description = 'Writes 3,000,000 empty lines to stderr.', timeout = 600,
    run = function() return capture([[head -c 3000000 /dev/zero | tr '\\0' '\\n' >&2; echo done]]) end,
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

test('empty lines count against the log bound too: a flood of them is cut, and the cut is noted', async () => {
  const host = await startHost(join(root, 'cfg', 'init.lua'));
  let entries = 0;
  let last = '';
  const result = await host.call('blank', {}, { onLog: (text) => (entries++, (last = text)) });
  assert.equal(result.status, 'ok', result.content);
  assert.equal(result.content.trim(), 'done');
  assert.ok(entries <= 1_000_001, `${entries} log entries reached the host`);
  assert.match(last, /dropped past its 1,000,000-character limit/);
});
