// A guarded tool cannot tell whether a file outside its roots exists (docs/writing-tools.md,
// "What is enforced"): `package.searchpath` and `require` find nothing outside the read roots, a
// file that is there as much as one that is not.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
