// A guarded tool cannot tell whether a file outside its roots exists (docs/writing-tools.md,
// "What is enforced"): `package.searchpath` and `require` find nothing outside the read roots, a
// file that is there as much as one that is not. Nor does it open one there to be refused: a
// FIFO's blocked writer is let through by any reader's open, so it shows whether one happened.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const root = tempDir('moonpool-guard-');
const work = join(root, 'work');
const outside = join(root, 'outside');
mkdirSync(work);
mkdirSync(outside);
mkdirSync(join(root, 'cfg'));
writeFileSync(join(outside, 'present.lua'), 'return 1');
writeFileSync(
  join(root, 'cfg', 'init.lua'),
  `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'probe', description = 'Runs the Lua it is given.', permissions = { read = { '.' } },
    parameters = { type = 'object', properties = { code = { type = 'string' } }, required = { 'code' } },
    run = function(args) return tostring(assert(load(args.code, '=probe'))()) end,
  }
end)
`,
);
const host = await startHost(join(root, 'cfg', 'init.lua'), { cwd: work });

/** What the tool sees for `name` under `outside`, with the name itself blanked. */
async function seen(code: (name: string) => string, name: string): Promise<string> {
  const result = await host.call('probe', { code: code(name) });
  return `${result.status}: ${result.content.replaceAll(name, 'NAME').split('\n')[0]}`;
}

describe('outside its roots, a file that exists looks like one that does not', () => {
  test('package.searchpath', async () => {
    const code = (name: string) => `return package.searchpath('${name}', '${outside}/?.lua')`;
    assert.equal(await seen(code, 'present'), await seen(code, 'absent'));
  });

  test('require', async () => {
    const code = (name: string) =>
      `package.path = '${outside}/?.lua'; local ok, e = pcall(require, '${name}'); return (tostring(e):gsub('%s+', ' '))`;
    assert.equal(await seen(code, 'present'), await seen(code, 'absent'));
  });
});

describe('outside its roots, a read is refused before anything is opened', () => {
  for (const [what, code] of [
    ['io.open', (fifo: string) => `return tostring(select(2, pcall(io.open, '${fifo}')))`],
    ['loadfile', (fifo: string) => `return tostring(select(2, pcall(loadfile, '${fifo}')))`],
  ] as const) {
    test(what, async () => {
      const fifo = join(outside, `fifo-${what}`);
      spawnSync('mkfifo', [fifo]);
      // Its open for writing waits until a reader opens the FIFO.
      const writer = spawn('sh', ['-c', `: > '${fifo}'`], { stdio: 'ignore' });
      const exited = once(writer, 'exit');
      try {
        const result = await host.call('probe', { code: code(fifo) });
        assert.match(result.content, /read outside the tool's permissions/);
        const opened = await Promise.race([exited.then(() => true), sleep(1000).then(() => false)]);
        assert.equal(opened, false, 'the FIFO outside the roots was opened');
      } finally {
        writer.kill('SIGKILL');
      }
    });
  }
});
