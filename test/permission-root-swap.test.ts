// A guarded tool may not move a link it finds under its write roots onto one of
// its roots (the session's spill directory, or a root it declared), which would make that root
// lead outside for the host's spill write and for the tool's later calls (docs/security.md, "A
// tool that declares permissions is held to them"), nor onto the name of its own spill file, which
// the host then writes through.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

/** A config with one tool, `probe`, that runs the Lua it is given under `permissions` (Lua source). */
function config(root: string, permissions: string): string {
  const dir = join(root, 'cfg');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'init.lua'),
    `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'probe', description = 'Runs the Lua it is given.', permissions = ${permissions},
    parameters = { type = 'object', properties = { code = { type = 'string' } }, required = { 'code' } },
    run = function(args, ctx)
      local chunk = assert(load(args.code, '=probe', 't', setmetatable({ ctx = ctx }, { __index = _G })))
      return tostring(chunk())
    end,
  }
end)
`,
  );
  return join(dir, 'init.lua');
}

/** A work directory and an outside directory `victim`, with `work/<linkDir>/link` an absolute link to it. */
function layout(linkDir: string): { root: string; work: string; victim: string } {
  const root = tempDir('moonpool-guard-');
  const work = join(root, 'work');
  const victim = join(root, 'victim');
  mkdirSync(join(work, linkDir), { recursive: true });
  mkdirSync(victim);
  symlinkSync(victim, join(work, linkDir, 'link'));
  return { root, work, victim };
}

describe('a root of a guarded tool cannot be turned into a link out of the roots', () => {
  test('the spill directory, replaced by a link found under a write root', async () => {
    const { root, work, victim } = layout('out');
    const host = await startHost(config(root, "{ read = { 'out' }, write = { 'out' } }"), { cwd: work });
    const call = (code: string) => host.call('probe', { code });
    // Each step may be refused; whatever happens, nothing may appear in `victim`.
    await call("os.remove(ctx.spill_dir); os.rename('out/link', ctx.spill_dir); return 'moved'");
    await call("return string.rep('A', 60000)");
    const later = await call(
      `local f = io.open('${victim}/written', 'w'); if f then f:close() end; return tostring(f)`,
    );
    assert.deepEqual(
      readdirSync(victim),
      [],
      `created outside the roots (last call: ${later.status} ${later.content})`,
    );
  });

  test('a declared write root, replaced by a link found under another', async () => {
    const { root, work, victim } = layout('b');
    mkdirSync(join(work, 'a'));
    const host = await startHost(config(root, "{ write = { 'a', 'b' } }"), { cwd: work });
    const call = (code: string) => host.call('probe', { code });
    await call("os.remove('a'); os.rename('b/link', 'a'); return 'moved'");
    const later = await call(
      `local f = io.open('${victim}/written', 'w'); if f then f:close() end; return tostring(f)`,
    );
    assert.deepEqual(
      readdirSync(victim),
      [],
      `created outside the roots (last call: ${later.status} ${later.content})`,
    );
  });
  test("a link moved onto the name of the call's own spill file", async () => {
    const { root, work, victim } = layout('out');
    writeFileSync(join(victim, 'kept.conf'), 'original');
    symlinkSync(join(victim, 'kept.conf'), join(work, 'out', 'to-kept'));
    const host = await startHost(config(root, "{ read = { 'out' }, write = { 'out' } }"), { cwd: work });
    await host.call('probe', {
      code: "os.rename('out/to-kept', ctx.spill_dir .. '/' .. ctx.tool .. '-' .. ctx.call_id .. '.txt'); return string.rep('A', 60000)",
    });
    assert.equal(readFileSync(join(victim, 'kept.conf'), 'utf8'), 'original');
  });
});
