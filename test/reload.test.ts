// Reloading a config: an edit is picked up without a restart, a broken edit keeps the last good
// config serving (with file:line), calls in flight finish on the generation they started on, and
// nothing of a replaced generation outlives it.
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ReloadResult } from '../core/index.js';
import { eventually, startHost, tempDir } from './helpers.js';

function config(version: string, extra = ''): string {
  return `
${extra}
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'version',
    description = 'Says which version of the config answered.',
    run = function() return '${version}' end,
  }
  registry:add {
    name = 'slow',
    description = 'Takes a while, then says its version.',
    parameters = { type = 'object', properties = { seconds = { type = 'number' } } },
    run = function(args)
      print('running')
      local stop = os.clock() + (args.seconds or 3)
      while os.clock() < stop do end
      return 'slow ${version}'
    end,
  }
end)
`;
}

function configDir(version: string): { dir: string; file: string; write: (text: string) => void } {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  const write = (text: string): void => writeFileSync(file, text);
  write(config(version));
  return { dir, file, write };
}

const threads = (): number => readdirSync('/proc/self/task').length;

describe('reload', () => {
  test('an edit is picked up: v1 then v2, with the tools of the edited module named as changed', async () => {
    const { file, write } = configDir('v1');
    const host = await startHost(file);
    assert.equal((await host.call('version', {})).content, 'v1');
    write(config('v2'));
    const result = await host.reload();
    assert.deepEqual(
      [result.ok, result.generation, result.added, result.removed, result.changed],
      [true, 2, [], [], ['version', 'slow']],
    );
    assert.equal((await host.call('version', {})).content, 'v2');
  });

  test('a syntax error keeps v1 serving and names file:line; a fixed edit then loads', async () => {
    const { file, write } = configDir('v1');
    const host = await startHost(file);
    write(`${config('v2')}\nthis is not lua\n`);
    const failed = await host.reload();
    assert.equal(failed.ok, false);
    assert.equal(failed.generation, 1);
    assert.equal(failed.diagnostics[0]!.file, file);
    assert.equal(typeof failed.diagnostics[0]!.line, 'number');
    assert.match(failed.diagnostics[0]!.message, /syntax error|near/);
    assert.equal((await host.call('version', {})).content, 'v1');
    write(config('v3'));
    assert.equal((await host.reload()).ok, true);
    assert.equal((await host.call('version', {})).content, 'v3');
  });

  test('a runtime error at load, and handlers that leave no tools, keep v1', async () => {
    const { file, write } = configDir('v1');
    const host = await startHost(file);
    write(`${config('v2')}\nerror('broken at load')\n`);
    const atLoad = await host.reload();
    assert.equal(atLoad.ok, false);
    assert.match(atLoad.diagnostics[0]!.message, /broken at load/);
    write("agent.on('discover_tools', function(registry) error('handler broke') end)\n");
    const noTools = await host.reload();
    assert.equal(noTools.ok, false);
    assert.match(noTools.diagnostics[0]!.message, /discover_tools handler failed: .*handler broke/);
    assert.equal((await host.call('version', {})).content, 'v1');
  });

  test('a load that loops forever is cut off at the load timeout, at the line it was at, and keeps v1', async () => {
    const { file, write } = configDir('v1');
    // The limit also bounds v1's own loads (the host's, the worker's): room for a loaded machine.
    const host = await startHost(file, { loadTimeoutMs: 3000 });
    write('local n = 0\nwhile true do\n  n = n + 1\nend\n');
    const result = await host.reload();
    assert.equal(result.ok, false);
    const { line, message } = result.diagnostics[0]!;
    assert.deepEqual(
      { line, message },
      {
        line: 3,
        message: 'loading the config took longer than 3 s (an endless loop at load time?)',
      },
    );
    assert.equal((await host.call('version', {})).content, 'v1');
  });

  test('a call started before the reload finishes on v1; calls after it get v2', async () => {
    const { file, write } = configDir('v1');
    const host = await startHost(file);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = host.call('slow', { seconds: 3 }, { onLog: () => started() });
    await running;
    write(config('v2'));
    assert.equal((await host.reload()).ok, true);
    assert.equal((await host.call('version', {})).content, 'v2');
    assert.equal((await slow).content, 'slow v1');
  });

  test("a replaced generation's workers still running calls are among moduleThreads, as stats() counts them", async () => {
    const { file, write } = configDir('v1');
    const host = await startHost(file);
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const slow = host.call('slow', { seconds: 60 }, { onLog: () => started() });
    await running;
    write(config('v2'));
    assert.equal((await host.reload()).ok, true);
    const [module] = Object.keys(host.stats().modules);
    assert.equal(host.stats().modules[module!]?.alive, 1);
    assert.equal(host.moduleThreads(module!).length, 1);
    // A monitoring host reaches the runaway call's thread: terminating it crashes the call.
    await host.moduleThreads(module!)[0]!.terminate();
    assert.equal((await slow).status, 'crashed');
  });

  test('after 50 alternating good and bad reloads, threads and memory are back where they were', async () => {
    const { file, write } = configDir('v0');
    const host = await startHost(file, { maxThreadsPerModule: 1 });
    await host.call('version', {});
    const baselineThreads = threads();
    const baselineRss = process.memoryUsage().rss;
    for (let i = 1; i <= 50; i++) {
      if (i % 2 === 0) {
        write(config(`v${i}`));
        assert.equal((await host.reload()).ok, true, `reload ${i}`);
        assert.equal((await host.call('version', {})).content, `v${i}`);
      } else {
        write('syntax error here\n');
        assert.equal((await host.reload()).ok, false, `reload ${i}`);
      }
    }
    assert.ok(
      await eventually(() => threads() <= baselineThreads, 10_000),
      `${threads()} threads, ${baselineThreads} after the first load`,
    );
    const grown = (process.memoryUsage().rss - baselineRss) / 1048576;
    assert.ok(grown < 100, `RSS grew by ${grown.toFixed(0)} MiB`);
  });

  test('with watch, an edit reloads by itself and the reload event reports it', async () => {
    const { file, write } = configDir('v1');
    const host = await startHost(file, { watch: true });
    const reloaded = new Promise<ReloadResult>((resolve) => host.once('reload', resolve));
    write(
      config(
        'v2',
        "agent.on('discover_tools', function(r) r:add { name = 'extra', description = 'New.', run = function() return 'x' end } end)",
      ),
    );
    const result = await reloaded;
    assert.equal(result.ok, true);
    assert.deepEqual(result.added, ['extra']);
    assert.equal((await host.call('version', {})).content, 'v2');
  });
});
