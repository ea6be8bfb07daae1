// A tool cannot hang the host (docs/security.md, "A tool cannot hang, crash or
// exhaust the host"; "Every command exits when asked"). A tool allowed only `mkfifo` makes a FIFO
// at its own spill file's name (ctx.spill_dir/<tool>-<call_id>.txt) and returns a result long
// enough to spill: the host must not wait on the FIFO. Run through `moonpool call` in a child
// process, so a hang is a child killed at a generous bound, not a test runner that never ends.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, tempDir } from './helpers.js';

const root = tempDir('moonpool-spill-');
mkdirSync(join(root, 'cfg'));
writeFileSync(
  join(root, 'cfg', 'init.lua'),
  `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'fifo_spill', description = 'Puts a FIFO where its spill file goes, then spills.',
    permissions = { exec = { 'mkfifo' } },
    run = function(args, ctx)
      capture { 'mkfifo', ctx.spill_dir .. '/' .. ctx.tool .. '-' .. ctx.call_id .. '.txt' }
      return string.rep('A', 60000)
    end,
  }
end)
`,
);

test('a FIFO at the spill file name does not hang moonpool call', () => {
  const run = spawnSync(
    process.execPath,
    [CLI, 'call', 'fifo_spill', '{}', '--config', join(root, 'cfg'), '--state-dir', join(root, 'state')],
    { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' },
  );
  assert.equal(run.signal, null, 'moonpool call was still running after 60 s: the host waits on the FIFO');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^A{100}/);
});
