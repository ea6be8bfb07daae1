// What a tool may touch is visible wherever tools are shown: `list` (a line per tool, and
// `"permissions"` in the JSON, null for full access), `check` (a note per tool that declares
// nothing, which `--strict` fails on), the dashboard's /tools, and MCP's tools/list, where a tool
// that writes and runs nothing is read-only unless its author says otherwise.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, eventually, FIXTURES, startHost, tempDir } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

const CONFIG = join(FIXTURES, 'permissions-shown');
const INIT = join(CONFIG, 'init.lua');

function moonpool(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [CLI, ...args, '--state-dir', tempDir()], {
    encoding: 'utf8',
    cwd: tempDir(),
    env: { ...process.env, MOONPOOL_CONFIG: '' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('moonpool list', () => {
  test('--json gives each tool its permissions as declared, and null for a tool that declares none', () => {
    const run = moonpool(['list', '--json', '--config', CONFIG]);
    assert.equal(run.code, 0, run.stderr);
    const tools = JSON.parse(run.stdout) as { name: string; permissions: unknown }[];
    assert.deepEqual(Object.fromEntries(tools.map((tool) => [tool.name, tool.permissions])), {
      reader: { read: ['.', '~/notes'], write: [], exec: [], env: ['HOME'] },
      builder: { read: true, write: ['out/'], exec: ['git'], env: [] },
      says_writes: { read: [], write: [], exec: [], env: [] },
      open: null,
    });
  });

  test('the table has a line under each tool saying what it may touch, or that it has full access', () => {
    const run = moonpool(['list', '--config', CONFIG]);
    assert.equal(run.code, 0, run.stderr);
    const lines = run.stdout.trimEnd().split('\n');
    assert.deepEqual(
      lines.filter((_, index) => index % 2 === 1).map((line) => line.trim()),
      [
        'read: ., ~/notes; write: none; exec: none; env: HOME',
        'read: any; write: out/; exec: git; env: none',
        'read: none; write: none; exec: none; env: none',
        'full access (declares no permissions)',
      ],
    );
    assert.match(lines[6]!, /^open +Declares no permissions\.$/);
  });
});

describe('moonpool check', () => {
  test('a tool that declares no permissions is a note at its registry:add line; --strict fails on it', () => {
    const plain = moonpool(['check', '--config', CONFIG]);
    assert.equal(plain.code, 0, plain.stdout);
    assert.deepEqual(plain.stdout.trimEnd().split('\n'), [
      `${INIT}:22: note: tool 'open' declares no permissions, so it may touch every file, command and variable (set \`permissions\` in registry:add)`,
      '4 tools loaded; 0 errors, 0 warnings, 1 note',
    ]);
    assert.equal(moonpool(['check', '--strict', '--config', CONFIG]).code, 1);
  });

  test('a config whose tools all declare permissions (or take the default) passes --strict', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'init.lua'),
      `agent.default_permissions { read = { '.' } }
agent.on('discover_tools', function(registry)
  registry:add { name = 'a', description = 'A.', run = function() return 'a' end }
  registry:add { name = 'b', description = 'B.', permissions = {}, run = function() return 'b' end }
end)
`,
    );
    const run = moonpool(['check', '--strict', '--config', dir]);
    assert.deepEqual([run.code, run.stdout], [0, '2 tools loaded; 0 errors, 0 warnings\n']);
  });
});

test('MCP tools/list: a tool that writes and runs nothing is readOnlyHint, unless its author said otherwise', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config', CONFIG, '--state-dir', tempDir(), '--cwd', tempDir()],
    env: { ...process.env, MOONPOOL_CONFIG: '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'permissions-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(Object.fromEntries(tools.map((tool) => [tool.name, tool.annotations])), {
      reader: { readOnlyHint: true },
      builder: undefined,
      says_writes: { readOnlyHint: false },
      open: undefined,
    });
  } finally {
    await client.close();
  }
});

test("the dashboard's /tools shows what each tool may touch, under its name", async () => {
  const host = await startHost(CONFIG);
  const { dashboard, terminal, lines, screen } = virtualDashboard(host, 100, 30);
  terminal.type('/tools\r');
  const plain = (): string[] => lines().map((line) => line.replace(/\{[^{}]*\}/g, '').trim());
  const after = (name: string): string | undefined => {
    const shown = plain();
    return shown[shown.findIndex((line) => line.startsWith(`${name}  `)) + 1];
  };
  assert.ok(await eventually(() => after('open') === 'full access (declares no permissions)', 5000), screen());
  assert.equal(after('reader'), 'read: ., ~/notes; write: none; exec: none; env: HOME');
  assert.equal(after('builder'), 'read: any; write: out/; exec: git; env: none');
  await dashboard.quit();
});
