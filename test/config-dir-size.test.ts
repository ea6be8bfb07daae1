// A config directory full of files that cannot hold Lua: a reload still loads its tools, the
// host's event loop keeps turning while the tree is listed (the longest pause during the reload
// is well below what listing the tree in one synchronous go takes), a symbolic link loop does not
// hold it, and a tree past the entry limit fails the reload with a message naming the limit while
// the last good config keeps serving.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { stallsDuring, startHost, tempDir } from './helpers.js';

function tool(version: string): string {
  return `
local helper = require('helper')
agent.on('discover_tools', function(registry)
  registry:add { name = 'version', description = 'Says which config answered.', run = function() return helper.tag .. '${version}' end }
end)
`;
}

/** Adds `count` empty files that cannot hold Lua under `root/name`, `perDirectory` to a directory. */
function addDataFiles(root: string, name: string, count: number, perDirectory: number): void {
  for (let i = 0; i < count; i++) {
    const dir = join(root, name, `d${Math.floor(i / perDirectory)}`);
    if (i % perDirectory === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `f${i}.json`), '');
  }
}

/** The walk as a synchronous listing of the whole tree would do it, with its Lua files read; in ms. */
function synchronousWalkMs(root: string): number {
  const started = performance.now();
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) pending.push(join(dir, entry.name));
      else if (entry.name.endsWith('.lua')) readFileSync(join(dir, entry.name));
    }
  }
  return performance.now() - started;
}

test(
  'a config dir of 55,000 other entries reloads without stalling the host; past 100,000 the last good config stays',
  { timeout: 180_000 },
  async () => {
    const root = tempDir();
    writeFileSync(join(root, 'init.lua'), tool('v0'));
    mkdirSync(join(root, 'lua'));
    writeFileSync(join(root, 'lua', 'helper.lua'), "return { tag = 'helper ' }");
    mkdirSync(join(root, 'loop'));
    symlinkSync('..', join(root, 'loop', 'up'));
    addDataFiles(root, 'data', 50_000, 10);
    const host = await startHost(join(root, 'init.lua'));
    assert.equal((await host.call('version', {})).content, 'helper v0');

    // The machine may pause this process at any moment: the least of a few measurements is the one
    // the walk itself accounts for.
    const synchronousMs = Math.min(synchronousWalkMs(root), synchronousWalkMs(root));
    const stalls: number[] = [];
    for (const version of ['v1', 'v2', 'v3']) {
      writeFileSync(join(root, 'init.lua'), tool(version));
      const { value: reloaded, stallMs } = await stallsDuring(() => host.reload());
      assert.deepEqual([reloaded.ok, reloaded.diagnostics], [true, []]);
      assert.equal((await host.call('version', {})).content, `helper ${version}`);
      stalls.push(stallMs);
    }
    const stallMs = Math.min(...stalls);
    assert.ok(
      stallMs < synchronousMs / 2,
      `the event loop stood still for ${stallMs.toFixed(0)} ms during the reload; a synchronous walk of the tree takes ${synchronousMs.toFixed(0)} ms`,
    );

    addDataFiles(root, 'more', 45_000, 1000);
    writeFileSync(join(root, 'init.lua'), tool('v4'));
    const refused = await host.reload();
    assert.equal(refused.ok, false);
    assert.match(
      refused.diagnostics.map((diagnostic) => diagnostic.message).join('\n'),
      /holds more than 100,000 entries \(the limit; \.git and node_modules are not counted\)/,
    );
    assert.equal((await host.call('version', {})).content, 'helper v3');
  },
);
