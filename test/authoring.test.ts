// The tool author's path: `moonpool new` gives a tool that checks, runs, renders live and is
// served over MCP; the Lua Language Server annotations match the runtime exactly; and every Lua
// snippet in the README and the guide loads without a problem.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { decodeSnapshot } from '../core/index.js';
import { DEFINITION_FIELDS } from '../core/tool-definitions.js';
import { CLI, eventually, ROOT, startHost, tempDir } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

function moonpool(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, MOONPOOL_CONFIG: '' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('moonpool new', () => {
  test('writes a tool that checks, runs, renders live in the dashboard and is listed over MCP', async () => {
    const dir = tempDir();
    const made = moonpool(['new', 'greet', '--dir', dir], dir);
    assert.equal(made.code, 0, made.stderr);
    // The command to try it is the one that was run: `moonpool` is not on PATH in a clone.
    assert.equal(made.stdout.split('\n').at(-2), `try it: node ${CLI} call greet '{"who":"Ada"}' --config ${dir}`);
    assert.ok(existsSync(join(dir, 'lua', 'greet.lua')));
    assert.match(readFileSync(join(dir, 'init.lua'), 'utf8'), /^require\('greet'\)$/m);
    assert.deepEqual(JSON.parse(readFileSync(join(dir, '.luarc.json'), 'utf8')), {
      'workspace.library': [join(ROOT, 'workers', 'lua', 'meta')],
    });

    const common = ['--config', dir, '--state-dir', join(dir, 'state')];
    // It declares its permissions, so even --strict finds nothing to say.
    assert.deepEqual(moonpool(['check', '--strict', ...common], dir), {
      code: 0,
      stdout: '1 tool loaded; 0 errors, 0 warnings\n',
      stderr: '',
    });
    assert.deepEqual(moonpool(['call', 'greet', '{"who":"Ada","steps":2}', ...common], dir).stdout, 'Hello, Ada!\n');

    const host = await startHost(join(dir, 'init.lua'));
    const { dashboard, terminal, lines, screen } = virtualDashboard(host, 100, 20);
    terminal.type('greet {"who":"Ada","steps":20}\r');
    assert.ok(await eventually(() => lines().some((line) => /\[#+-*\] step \d+ of 20/.test(line)), 10_000), screen());
    await dashboard.quit();

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', ...common],
      env: { ...process.env, MOONPOOL_CONFIG: '' },
    });
    const client = new Client({ name: 'authoring-test', version: '1.0.0' });
    await client.connect(transport);
    assert.deepEqual(
      (await client.listTools()).tools.map((tool) => tool.name),
      ['greet'],
    );
    // Its state's `progress = { done, total }` reaches an MCP client as the call's progress.
    const progress: { progress: number; total?: number | undefined }[] = [];
    const greeted = await client.callTool({ name: 'greet', arguments: { who: 'Ada', steps: 5 } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    assert.deepEqual(greeted.content, [{ type: 'text', text: 'Hello, Ada!' }]);
    await client.close();
    // (A title shown before the first state is a count alone.)
    assert.ok(
      progress.some((update) => update.total === 5) &&
        progress.every((update) => update.total === undefined || update.total === 5),
      JSON.stringify(progress),
    );
  });

  test("the demo's counting tools show progress = { done, total }", async () => {
    const host = await startHost(join(ROOT, 'examples', 'demo'), { cwd: join(ROOT, 'examples') });
    for (const [tool, args] of [
      ['count_lines', { path: 'seed' }],
      ['primes', { limit: 100_000 }],
    ] as const) {
      const result = await host.call(tool, args);
      assert.equal(result.status, 'ok', result.content);
      const state = decodeSnapshot(result.snapshot!) as { progress?: { done: number; total: number } };
      assert.ok(
        state.progress && state.progress.done === state.progress.total && state.progress.total > 0,
        `${tool}: ${JSON.stringify(state.progress)}`,
      );
    }
  });

  test("the demo's finished blocks give totals, not counts 'so far', and count one file as a file", async () => {
    const host = await startHost(join(ROOT, 'examples', 'demo'), { cwd: join(ROOT, 'examples') });
    const drawn = async (tool: string, args: Record<string, unknown>): Promise<string[]> => {
      const result = await host.call(tool, args);
      assert.equal(result.status, 'ok', result.content);
      const body = await host.render(tool, result.snapshot!, { width: 78, height: 8, expand: false });
      assert.ok(body.ok, body.ok ? '' : String(body.reason));
      return body.lines;
    };
    assert.deepEqual((await drawn('count_lines', { path: 'seed/1-weather/init.lua' })).slice(1), [
      '19 lines',
      '  lua                19 lines      1 file',
    ]);
    assert.equal((await drawn('primes', { limit: 100 }))[1], '25 primes found, the largest 97');
  });

  test('the demo passes check --strict, and each of its tools runs within the permissions it declares', async () => {
    const demo = join(ROOT, 'examples', 'demo');
    const check = moonpool(['check', '--strict', '--config', demo, '--state-dir', tempDir()], tempDir());
    assert.equal(check.code, 0, check.stdout);
    assert.doesNotMatch(check.stdout, /note:|warning:/);
    const host = await startHost(demo, { cwd: join(ROOT, 'examples') });
    assert.ok(host.allTools().every((tool) => tool.permissions !== null));
    const outcomes = await Promise.all(
      (
        [
          ['count_lines', { path: 'seed/1-weather/init.lua' }],
          ['count_lines', { path: 'no-such-dir' }],
          ['primes', { limit: 100 }],
          ['sh', { command: 'echo ran' }],
          ['misbehave', { mode: 'sleep' }],
          ['misbehave', { mode: 'error' }],
        ] as const
      ).map(async ([tool, args]) => {
        const result = await host.call(tool, args);
        return [tool, result.status, result.content.split('\n')[0]];
      }),
    );
    assert.deepEqual(outcomes, [
      ['count_lines', 'ok', '19 lines in 1 file under seed/1-weather/init.lua'],
      ['count_lines', 'error', 'no-such-dir: no such file or directory'],
      ['primes', 'ok', '25 primes below 100; the largest is 97'],
      ['sh', 'ok', 'ran'],
      ['misbehave', 'timeout', 'misbehave: timed out after 3 s (set `timeout` in registry:add to allow longer)'],
      ['misbehave', 'error', `${join(demo, 'lua', 'misbehave.lua')}:22: failing on purpose`],
    ]);
  });

  test('never overwrites a file, and adds the require line to an existing init.lua', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'init.lua'), "-- mine\nrequire('other')");
    assert.equal(moonpool(['new', 'greet', '--dir', dir], dir).code, 0);
    assert.equal(readFileSync(join(dir, 'init.lua'), 'utf8'), "-- mine\nrequire('other')\nrequire('greet')\n");
    const again = moonpool(['new', 'greet', '--dir', dir], dir);
    assert.equal(again.code, 2);
    assert.match(again.stderr, /greet\.lua exists already; nothing was written/);
  });
});

describe('annotations', () => {
  const meta = readFileSync(join(ROOT, 'workers', 'lua', 'meta', 'moonpool.lua'), 'utf8');
  const declared = (pattern: RegExp): string =>
    [...meta.matchAll(pattern)]
      .map((match) => match[1]!)
      .sort()
      .join(',');
  const classFields = (name: string): string[] => {
    const block = meta.split(`---@class ${name}\n`)[1]!.split(/\n(?!---@field)/)[0]!;
    return [...block.matchAll(/---@field (\w+)/g)].map((match) => match[1]!);
  };

  test('every global, method and field the file declares exists in a worker, and nothing more', async () => {
    const host = await startHost('introspect');
    const result = await host.call('introspect', {});
    const runtime = Object.fromEntries(result.content.split('\n').map((line) => line.split('=') as [string, string]));
    assert.equal(
      runtime['globals'],
      declared(/^(\w+) = /gm) +
        ',' +
        declared(/^function (\w+)\(/gm)
          .split(',')
          .filter(Boolean)
          .join(','),
    );
    assert.equal(runtime['agent'], declared(/^function agent\.(\w+)/gm));
    assert.equal(runtime['registry'], declared(/^function ToolRegistry:(\w+)/gm));
    assert.equal(
      runtime['ctx'],
      [...classFields('RunCtx'), ...declared(/^function RunCtx:(\w+)/gm).split(',')].sort().join(','),
    );
    const rendered = await host.render('introspect', result.snapshot!, { width: 40, height: 5, expand: false });
    assert.deepEqual(rendered, { ok: true, lines: [`view=${classFields('RenderView').sort().join(',')}`] });
  });

  test('the ToolDefinition fields are exactly the ones registry:add knows (DEFINITION_FIELDS)', () => {
    assert.deepEqual(classFields('ToolDefinition').sort(), [...DEFINITION_FIELDS].sort());
  });
});

describe('documentation snippets', () => {
  const snippets = (file: string): string[] =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/```lua\n([\s\S]*?)```/g)].map((match) => match[1]!);

  for (const file of ['README.md', 'docs/writing-tools.md']) {
    // --strict: a snippet a reader copies declares its permissions, so check has no note for it.
    test(`every Lua snippet in ${file} loads as a config with no problem`, () => {
      const found = snippets(file);
      assert.ok(found.length > 0);
      for (const snippet of found) {
        const dir = tempDir();
        writeFileSync(join(dir, 'init.lua'), snippet);
        const check = moonpool(['check', '--strict', '--config', dir, '--state-dir', join(dir, 'state')], dir);
        assert.equal(check.code, 0, `${snippet}\n${check.stdout}${check.stderr}`);
        assert.match(check.stdout, /[1-9]\d* tools? loaded; 0 errors, 0 warnings/);
      }
    });
  }

  test("the README's quick start runs as written", () => {
    const [quickStart] = snippets('README.md');
    const dir = tempDir();
    writeFileSync(join(dir, 'init.lua'), quickStart!);
    writeFileSync(join(dir, 'poem.txt'), 'one two three\nfour\n');
    const call = moonpool(
      ['call', 'word_count', '{"path":"poem.txt"}', '--config', dir, '--cwd', dir, '--state-dir', join(dir, 'state')],
      dir,
    );
    assert.deepEqual([call.code, call.stdout], [0, 'poem.txt has 4 words\n']);
    // A directory opens but cannot be read: the model is told so, the tool does not crash.
    mkdirSync(join(dir, 'poems'));
    const directory = moonpool(
      ['call', 'word_count', '{"path":"poems"}', '--config', dir, '--cwd', dir, '--state-dir', join(dir, 'state')],
      dir,
    );
    assert.deepEqual([directory.code, directory.stderr], [1, 'poems: Is a directory\n']);
  });
});
