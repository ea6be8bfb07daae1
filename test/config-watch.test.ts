// `--watch` survives editors: saves by rename (vim, `sed -i`, safe write), a delete and re-create,
// an atomic save in a subdirectory and a directory made after the start are each seen, and so is
// every edit after them. Each step waits for its own reload, so a watch that went quiet fails.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { MAX_WATCHED_DIRS, watchConfig } from '../core/config-watcher.js';
import type { ReloadResult, ToolHost } from '../core/index.js';
import { eventually, startHost, tempDir } from './helpers.js';

const DEBOUNCE_MS = 50;

/** A watcher on a fresh directory, and a way to wait for the next settled burst. */
function watched(): { dir: string; settles: () => number; nextSettle: (change: () => void) => Promise<boolean> } {
  const dir = tempDir();
  let count = 0;
  const watcher = watchConfig(dir, () => count++, DEBOUNCE_MS);
  after(() => watcher.close());
  return {
    dir,
    settles: () => count,
    nextSettle: async (change) => {
      await watcher.ready;
      const before = count;
      change();
      return eventually(() => count > before, 5000);
    },
  };
}

function saveByRename(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

/** A watcher on `cfg` inside a fresh directory, which a test may delete and make again. */
function watchedSubdir(): { dir: string; nextSettle: (change: () => void) => Promise<boolean> } {
  const dir = join(tempDir(), 'cfg');
  mkdirSync(dir);
  writeFileSync(join(dir, 'init.lua'), '-- v0\n');
  let count = 0;
  const watcher = watchConfig(dir, () => count++, DEBOUNCE_MS);
  after(() => watcher.close());
  return {
    dir,
    nextSettle: async (change) => {
      await watcher.ready;
      const before = count;
      change();
      return eventually(() => count > before, 5000);
    },
  };
}

function makeAgain(dir: string, text: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, 'init.lua'), text);
}

describe('config watcher', () => {
  test('a config directory deleted and made again at once is watched anew: later edits are seen', async () => {
    const { dir, nextSettle } = watchedSubdir();
    assert.ok(await nextSettle(() => makeAgain(dir, '-- v1\n')), 'the directory made again was not seen');
    await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 3));
    assert.ok(
      await nextSettle(() => appendFileSync(join(dir, 'init.lua'), '-- v2\n')),
      'an edit after it was not seen',
    );
  });

  test('a config directory deleted, and made again a while later, is watched anew: later edits are seen', async () => {
    const { dir, nextSettle } = watchedSubdir();
    assert.ok(await nextSettle(() => rmSync(dir, { recursive: true, force: true })));
    await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 6));
    assert.ok(await nextSettle(() => makeAgain(dir, '-- v1\n')), 'the directory made again was not seen');
    await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 3));
    assert.ok(
      await nextSettle(() => appendFileSync(join(dir, 'init.lua'), '-- v2\n')),
      'an edit after it was not seen',
    );
  });

  test('a file that cannot hold Lua written again and again keeps no edit of init.lua from settling', async () => {
    const { dir, nextSettle } = watchedSubdir();
    const noise = setInterval(() => writeFileSync(join(dir, 'build.log'), String(Date.now())), DEBOUNCE_MS / 3);
    try {
      await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 2));
      assert.ok(await nextSettle(() => appendFileSync(join(dir, 'init.lua'), '-- v1\n')), 'the edit never settled');
    } finally {
      clearInterval(noise);
    }
  });

  test('a save by rename is seen, and so is every edit after it', async () => {
    const { dir, nextSettle } = watched();
    const file = join(dir, 'init.lua');
    writeFileSync(file, '-- v1\n');
    assert.ok(await nextSettle(() => saveByRename(file, '-- v2\n')), 'the rename-save');
    assert.ok(await nextSettle(() => appendFileSync(file, '-- v3\n')), 'an append after the rename-save');
    assert.ok(await nextSettle(() => saveByRename(file, '-- v4\n')), 'a second rename-save');
    assert.ok(await nextSettle(() => writeFileSync(file, '-- v5\n')), 'a write after it');
  });

  test('a file deleted and made again is seen, and edits to the new one too', async () => {
    const { dir, nextSettle } = watched();
    const file = join(dir, 'init.lua');
    writeFileSync(file, '-- v1\n');
    assert.ok(await nextSettle(() => rmSync(file)), 'the delete');
    assert.ok(await nextSettle(() => writeFileSync(file, '-- v2\n')), 'the re-create');
    assert.ok(await nextSettle(() => appendFileSync(file, '-- v3\n')), 'an edit of the new file');
  });

  test('an atomic save of a module in a subdirectory, and a directory made after the start', async () => {
    const { dir, nextSettle } = watched();
    mkdirSync(join(dir, 'lua'));
    const module = join(dir, 'lua', 'tool.lua');
    writeFileSync(module, '-- v1\n');
    assert.ok(await nextSettle(() => saveByRename(module, '-- v2\n')), 'the rename-save in lua/');
    assert.ok(await nextSettle(() => appendFileSync(module, '-- v3\n')), 'an edit after it');
    assert.ok(await nextSettle(() => mkdirSync(join(dir, 'lua', 'new'))), 'a new directory');
    const nested = join(dir, 'lua', 'new', 'deep.lua');
    assert.ok(await nextSettle(() => writeFileSync(nested, '-- v1\n')), 'a file in the new directory');
    assert.ok(await nextSettle(() => saveByRename(nested, '-- v2\n')), 'a rename-save in the new directory');
  });

  test('a subdirectory deleted and made again, or renamed over, is watched anew', async () => {
    const { dir, nextSettle } = watched();
    const sub = join(dir, 'lua');
    mkdirSync(sub);
    writeFileSync(join(sub, 'tool.lua'), '-- v1\n');
    assert.ok(
      await nextSettle(() => {
        rmSync(sub, { recursive: true });
        mkdirSync(sub);
        writeFileSync(join(sub, 'tool.lua'), '-- v2\n');
      }),
      'the re-made directory',
    );
    assert.ok(
      await nextSettle(() => appendFileSync(join(sub, 'tool.lua'), '-- v3\n')),
      'an edit in the re-made directory',
    );
    const other = join(dir, 'lua2');
    mkdirSync(other);
    writeFileSync(join(other, 'tool.lua'), '-- v4\n');
    assert.ok(
      await nextSettle(() => {
        rmSync(sub, { recursive: true });
        renameSync(other, sub);
      }),
      'a directory renamed over it',
    );
    assert.ok(
      await nextSettle(() => appendFileSync(join(sub, 'tool.lua'), '-- v5\n')),
      'an edit in the renamed-over directory',
    );
  });

  test('a subdirectory moved away and a plain file put in its place is seen', async () => {
    const { dir, nextSettle } = watched();
    const sub = join(dir, 'lua');
    mkdirSync(sub);
    writeFileSync(join(sub, 'tool.lua'), '-- v1\n');
    await nextSettle(() => writeFileSync(join(sub, 'tool.lua'), '-- v2\n'));
    assert.ok(
      await nextSettle(() => {
        renameSync(sub, join(tempDir(), 'moved'));
        writeFileSync(sub, 'not a directory\n');
      }),
      'the module under lua/ is gone',
    );
  });

  test('a burst of writes settles once', async () => {
    const { dir, settles, nextSettle } = watched();
    const file = join(dir, 'init.lua');
    assert.ok(
      await nextSettle(() => {
        for (let i = 0; i < 20; i++) writeFileSync(file, `-- v${i}\n`);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 4));
    assert.equal(settles(), 1);
  });
});

describe('a large tree', () => {
  test('is listed without holding up the thread: other work runs while it is scanned', async () => {
    const dir = tempDir();
    for (let i = 0; i < MAX_WATCHED_DIRS - 1; i++) mkdirSync(join(dir, `d${i}`));
    let turns = 0;
    let turning = true;
    const turn = (): void => {
      turns++;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    let count = 0;
    const watcher = watchConfig(dir, () => count++, 0);
    after(() => watcher.close());
    const turnsWhileWatchStarted = turns;
    await watcher.ready;
    turning = false;
    // Listing the tree all at once would let no other work run before it is done.
    assert.equal(turnsWhileWatchStarted, 0);
    assert.ok(
      turns >= MAX_WATCHED_DIRS / 10,
      `other work ran ${turns} times while ${MAX_WATCHED_DIRS} directories were listed`,
    );
    // Every directory is watched once it is ready, the last one listed too.
    const before = count;
    writeFileSync(join(dir, `d${MAX_WATCHED_DIRS - 2}`, 'deep.lua'), '-- v1\n');
    assert.ok(await eventually(() => count > before, 5000), 'an edit in the last directory');
  });
});

describe('a host with watch', () => {
  function tool(version: string): string {
    return `agent.on('discover_tools', function(r) r:add { name = 'version', description = 'Its version.', run = function() return '${version}' end } end)\n`;
  }

  async function reloadedTo(host: ToolHost, change: () => void, version: string): Promise<void> {
    const reloaded = new Promise<ReloadResult | 'no reload'>((resolve) => {
      host.once('reload', resolve);
      setTimeout(() => resolve('no reload'), 10_000).unref();
    });
    change();
    const result = await reloaded;
    assert.ok(result !== 'no reload', `no reload came after the change to ${version}`);
    assert.equal(result.ok, true);
    assert.equal((await host.call('version', {})).content, version);
  }

  test('serves each version saved by rename, then by plain writes', async () => {
    const dir = tempDir();
    const file = join(dir, 'init.lua');
    writeFileSync(file, tool('v1'));
    const host = await startHost(file, { watch: true });
    await reloadedTo(host, () => saveByRename(file, tool('v2')), 'v2');
    await reloadedTo(host, () => writeFileSync(file, tool('v3')), 'v3');
    await reloadedTo(host, () => saveByRename(file, tool('v4')), 'v4');
    await reloadedTo(host, () => writeFileSync(file, tool('v5')), 'v5');
  });
});
