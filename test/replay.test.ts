// `moonpool replay` re-renders each block from its snapshot with the current config's render,
// without running `run`; a tool the config no longer defines shows its recorded text.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, tempDir } from './helpers.js';

function config(render: string | null): string {
  return `
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'counter',
    description = 'Counts to n, showing its progress.',
    parameters = { type = 'object', properties = { n = { type = 'integer' } } },
    run = function(args, ctx)
      local marker = io.open('runs.txt', 'a')
      marker:write('ran\\n')
      marker:close()
      ctx:title('to ' .. args.n)
      ctx:show { count = args.n }
      return 'counted to ' .. args.n
    end,
    ${render ?? ''}
  }
end)
${render === null ? "agent.on('discover_tools', function(registry) end)" : ''}`;
}

function moonpool(args: string[], cwd: string): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, MOONPOOL_CONFIG: '' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('replay uses the current render, never runs the tool, and falls back to the recorded text', () => {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  const common = ['--config', file, '--state-dir', join(dir, 'state'), '--session', 'replayed', '--cwd', dir];
  writeFileSync(file, config("render = function(state) return 'v1 rendering of ' .. state.count end,"));
  assert.equal(moonpool(['call', 'counter', '{"n":3}', ...common], dir).code, 0);

  writeFileSync(
    file,
    config("render = function(state, view) return { 'v2 rendering of ' .. state.count, 'width ' .. view.width } end,"),
  );
  const v2 = moonpool(['replay', 'replayed', '--width', '50', ...common], dir);
  assert.equal(v2.code, 0, v2.stderr);
  assert.equal(v2.stdout, `✓ counter  to 3  ${/\d+\.\d s/.exec(v2.stdout)![0]}\n  v2 rendering of 3\n  width 48\n`);

  writeFileSync(file, config(null).replace(/registry:add \{[\s\S]*?\n {2}\}\n/, ''));
  const removed = moonpool(['replay', 'replayed', ...common], dir);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(
    removed.stdout,
    /^✓ counter {2}to 3 {2}\d+\.\d s\n {2}counted to 3\n {2}\(counter is not defined in the current config; showing the text instead\)\n$/,
  );

  const runs = spawnSync('cat', [join(dir, 'runs.txt')], { encoding: 'utf8' }).stdout;
  assert.equal(runs, 'ran\n');
});

test('replay keeps a collapsed block at its eight body rows when render fails with a long message', () => {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  writeFileSync(
    file,
    `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'lines',
    description = 'Returns thirty lines and shows a state.',
    run = function(args, ctx)
      ctx:show { n = 30 }
      local out = {}
      for i = 1, 30 do out[i] = 'line ' .. i end
      return table.concat(out, '\\n')
    end,
    render = function(state) error(('x'):rep(3000)) end,
  }
end)`,
  );
  const common = ['--config', file, '--state-dir', join(dir, 'state'), '--session', 'long-reason', '--cwd', dir];
  assert.equal(moonpool(['call', 'lines', ...common], dir).code, 0);
  const replayed = moonpool(['replay', 'long-reason', '--width', '60', ...common], dir);
  assert.equal(replayed.code, 0, replayed.stderr);
  const lines = replayed.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 1 + 8, replayed.stdout);
  assert.match(lines[6]!, /^ {2}… 25 more lines \(--expand shows all\)$/);
  // The reason names the config's path, so where its first row breaks depends on the temp dir.
  assert.match(lines[7]!, /^ {2}\(render failed:/);
  assert.match(lines[8]!, /…$/);
});
