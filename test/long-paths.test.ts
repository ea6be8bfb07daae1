// Errors name the whole path of the user's file, however deep it sits: Lua cuts chunk names past
// 60 characters, and the worker writes them whole again (workers/chunk-names.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, FIXTURES, startHost, tempDir } from './helpers.js';
import { ChunkNames, MAX_REMEMBERED_BYTES, MAX_REMEMBERED_PATHS } from '../workers/chunk-names.js';

/** A directory whose path is over 150 characters long, holding a copy of `fixture`. */
function deepCopy(fixture: string): string {
  const segments = [
    'a-rather-long-directory-name-for-a-team',
    'agent-tooling-configuration-repository',
    'moonpool-configs-live-here',
    'one-more-level-to-be-sure',
  ];
  const dir = join(realpathSync(tempDir('moonpool-long-')), ...segments, fixture);
  assert.ok(dir.length > 150, `the test directory is only ${dir.length} characters long`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

describe('errors from a config over 150 characters deep', async () => {
  const dir = deepCopy('long-paths');
  const init = join(dir, 'init.lua');
  const module = join(dir, 'lua', 'deep_module.lua');
  const host = await startHost(dir);

  test('a runtime error names init.lua by its whole path and line', async () => {
    const result = await host.call('fails_here', {});
    assert.equal(result.status, 'error');
    assert.ok(result.content.startsWith(`${init}:10: failed in init`), result.content);
  });

  test('a traceback through a required module names every frame by its whole path', async () => {
    const result = await host.call('fails_in_module', {});
    assert.equal(result.status, 'error');
    const [message, ...frames] = result.content.split('\n');
    assert.equal(message, `${module}:5: failed in the module`);
    const locations = frames
      .map((line) => line.trim())
      .filter((line) => line.startsWith('/'))
      .map((line) => line.split(': in ')[0]);
    assert.deepEqual(locations.slice(0, 4), [`${module}:5`, `${module}:8`, `${module}:11`, `${init}:17`]);
    assert.ok(!result.content.includes('...'), result.content);
  });

  test('a ctx:show error names the line of the call by its whole path', async () => {
    const result = await host.call('shows_a_function', {});
    assert.equal(result.status, 'error');
    assert.ok(result.content.startsWith(`${init}:25: ctx:show: state.callback is a function`), result.content);
  });

  test('a traceback printed to the log names the module by its whole path', async () => {
    const lines: string[] = [];
    const result = await host.call('prints_a_traceback', {}, { onLog: (text) => lines.push(text) });
    assert.equal(result.content, 'printed');
    assert.ok(
      lines.some((line) => line.trim().startsWith(`${module}:16:`)),
      lines.join('\n'),
    );
  });

  test('after thousands of deep files were loaded, the last one is still named whole, quickly', async () => {
    const count = 2_000;
    const [loaded, healthy] = await Promise.all([host.call('loads_many', { count }), host.call('healthy', {})]);
    assert.equal(loaded.status, 'error');
    assert.ok(
      loaded.content.startsWith(`${join(dir, `generated_${count}.lua`)}:1: the last one fails`),
      loaded.content,
    );
    assert.equal(healthy.content, 'fine');
  });

  test('concurrently, a healthy tool of the same module keeps answering', async () => {
    const results = await Promise.all([
      host.call('fails_in_module', {}),
      host.call('healthy', {}),
      host.call('fails_here', {}),
      host.call('healthy', {}),
    ]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['error', 'ok', 'error', 'ok'],
    );
    assert.equal(results[1].content, 'fine');
  });
});

test('moonpool check names a syntax error by the whole path of a deep config', () => {
  const dir = deepCopy('long-paths-syntax');
  const run = spawnSync(process.execPath, [CLI, 'check', '--config', dir, '--state-dir', tempDir()], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(run.status, 1, run.stderr);
  assert.ok(run.stdout.startsWith(`${join(dir, 'init.lua')}:6: '}' expected`), run.stdout);
});

describe('the paths a worker remembers to name chunks whole', async () => {
  const root = realpathSync(tempDir());
  mkdirSync(join(root, 'cfg'));
  writeFileSync(
    join(root, 'cfg', 'init.lua'),
    `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'loads_then_fails', description = 'Loads the files named, then raises the message as is.',
    parameters = { type = 'object', properties = { paths = { type = 'array', items = { type = 'string' } }, message = { type = 'string' } } },
    run = function(args)
      for _, path in ipairs(args.paths) do loadfile(path) end
      error(args.message, 0)
    end,
  }
end)
`,
  );
  const host = await startHost(join(root, 'cfg', 'init.lua'));
  /** The message the tool fails with after loading `paths`, when it raises Lua's cut name of `named`. */
  const answer = async (paths: string[], named: string): Promise<string> =>
    (await host.call('loads_then_fails', { paths, message: `...${named.slice(-56)}` })).content.split('\n')[0]!;

  test('do not include a path whose file is missing', async () => {
    const missing = join(root, `${'m'.repeat(200)}.lua`);
    assert.equal(await answer([missing], missing), `...${missing.slice(-56)}`);
  });

  test('hold at most 1 MiB in all: past it, names stay cut', async () => {
    const deep = join(root, ...Array.from({ length: 15 }, (_, i) => `${i}`.padEnd(250, 'd')));
    mkdirSync(deep, { recursive: true });
    const paths = Array.from({ length: 300 }, (_, i) => join(deep, `f_${i}.lua`));
    for (const path of paths) writeFileSync(path, 'return 1');
    assert.ok(paths.reduce((sum, path) => sum + path.length, 0) > MAX_REMEMBERED_BYTES);
    assert.equal(await answer(paths, paths[0]!), paths[0]);
    assert.equal(await answer([], paths[299]!), `...${paths[299]!.slice(-56)}`);
  });
});

describe('ChunkNames', () => {
  const deep = (name: string): string => `/${'d'.repeat(80)}/${name}.lua`;
  const cut = (path: string): string => `...${path.slice(-56)}`;

  test('writes a cut name whole wherever it appears, and leaves other dots alone', () => {
    const names = new ChunkNames();
    names.remember(deep('a'));
    const text = `${cut(deep('a'))}:3: x... and ...more\n\t${cut(deep('a'))}:9: in function`;
    assert.equal(names.expand(text), `${deep('a')}:3: x... and ...more\n\t${deep('a')}:9: in function`);
    assert.equal(names.expand('...'), '...');
  });

  test('leaves names Lua does not cut, and stops remembering past its limit', () => {
    const names = new ChunkNames();
    names.remember('/short.lua');
    assert.equal(names.expand('.../short.lua'), '.../short.lua');
    for (let i = 0; i <= MAX_REMEMBERED_PATHS; i++) names.remember(deep(`file_${i}`));
    assert.equal(names.expand(cut(deep('file_0'))), deep('file_0'));
    const last = deep(`file_${MAX_REMEMBERED_PATHS}`);
    assert.equal(names.expand(cut(last)), cut(last));
  });

  test('expands a megabyte of dots in linear time', () => {
    const names = new ChunkNames();
    for (let i = 0; i < 1_000; i++) names.remember(deep(`file_${i}`));
    const text = '.'.repeat(1_000_000);
    const started = Date.now();
    assert.equal(names.expand(text), text);
    assert.ok(Date.now() - started < 30_000);
  });
});
