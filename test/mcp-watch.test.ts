// `moonpool mcp --watch` over the SDK's client: a save that leaves the config's files as they
// were reloads nothing; an edit of a tool's body reloads without tools/list_changed; a new tool
// sends tools/list_changed once.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, eventually, tempDir } from './helpers.js';

const tool = (name: string, body: string): string => `
agent.on('discover_tools', function(registry)
  registry:add {
    name = '${name}',
    description = 'Returns its text.',
    parameters = { type = 'object', properties = { text = { type = 'string' } }, required = { 'text' } },
    run = function(args) return ${body} end,
  }
end)
`;
/** Longer than the watcher's debounce many times over: changes this far apart are separate bursts. */
const APART_MS = 1500;

const dir = tempDir();
const file = join(dir, 'init.lua');
let client: Client;
let stderr = '';
let listChanged = 0;

const reloads = (): string[] => stderr.match(/reloaded: generation \d+/g) ?? [];
const echoText = async (): Promise<string> =>
  ((await client.callTool({ name: 'echo', arguments: { text: 'hi' } })).content as { text: string }[])[0]!.text;

before(async () => {
  writeFileSync(file, tool('echo', 'args.text'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config', file, '--watch', '--state-dir', join(dir, 'state'), '--cwd', dir],
    env: { ...process.env, MOONPOOL_CONFIG: '' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  client = new Client({ name: 'moonpool-watch-test', version: '1.0.0' });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void listChanged++);
  await client.connect(transport);
});

after(async () => {
  await client.close();
});

test('a save that changes no byte reloads nothing; a body edit reloads without list_changed; a new tool sends it once', async () => {
  assert.equal(await echoText(), 'hi');
  // Saved as it was: written again, the same bytes.
  writeFileSync(file, readFileSync(file));
  await sleep(APART_MS);
  writeFileSync(file, tool('echo', 'args.text:upper()'));
  assert.ok(await eventually(() => reloads().length > 0, 30_000), stderr);
  // Had the unchanged save reloaded, the edit's reload would be the third generation.
  assert.deepEqual(reloads(), ['reloaded: generation 2']);
  assert.equal(await echoText(), 'HI');
  assert.equal(listChanged, 0);
  await sleep(APART_MS);
  writeFileSync(file, `${tool('echo', 'args.text:upper()')}${tool('added', "'new'")}`);
  assert.ok(await eventually(() => listChanged > 0 && reloads().length > 1, 30_000), stderr);
  assert.deepEqual(reloads(), ['reloaded: generation 2', 'reloaded: generation 3']);
  assert.deepEqual(
    (await client.listTools()).tools.map(({ name }) => name),
    ['echo', 'added'],
  );
  assert.equal(listChanged, 1);
});
