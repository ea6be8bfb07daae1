// `moonpool mcp` driven by the MCP SDK's own client over stdio: list, results and errors,
// arguments the schema rejects, progress for a long tool, cancellation that leaves no process,
// and tools/list_changed after an edit under --watch.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ToolListChangedNotificationSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { CLI, eventually, liveProcesses, tempDir, uniqueSeconds } from './helpers.js';

const TOOLS = `
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'echo',
    description = 'Returns its text.',
    parameters = { type = 'object', properties = { text = { type = 'string' } }, required = { 'text' } },
    run = function(args) return args.text end,
  }
  registry:add {
    name = 'refuse',
    description = 'Reports a failure the model can react to.',
    run = function() return { content = 'no, not today', is_error = true } end,
  }
  registry:add {
    name = 'steps',
    description = 'Works through steps, showing each.',
    parameters = { type = 'object', properties = { count = { type = 'integer' } } },
    run = function(args, ctx)
      ctx:title('stepping')
      for i = 1, args.count or 5 do
        ctx:show { step = i }
        capture('sleep 0.12')
      end
      return 'stepped'
    end,
    render = function(state) return 'step ' .. state.step end,
  }
  registry:add {
    name = 'stuck',
    description = 'Sleeps in a child process.',
    parameters = { type = 'object', properties = { seconds = { type = 'string' } }, required = { 'seconds' } },
    run = function(args) capture('sleep ' .. args.seconds) return 'woke' end,
  }
end)
`;

describe('moonpool mcp', () => {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  let client: Client;

  before(async () => {
    writeFileSync(file, TOOLS);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--config', file, '--watch', '--state-dir', join(dir, 'state'), '--cwd', dir],
      env: { ...process.env, MOONPOOL_CONFIG: '' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'moonpool-test', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client.close();
  });

  test('tools/list gives every tool with its schema as inputSchema', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), ['echo', 'refuse', 'steps', 'stuck']);
    assert.deepEqual(tools[0]!.inputSchema, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  });

  test('a successful call returns text content; a tool error is isError', async () => {
    assert.deepEqual(await client.callTool({ name: 'echo', arguments: { text: 'hello' } }), { content: [{ type: 'text', text: 'hello' }], isError: false });
    assert.deepEqual(await client.callTool({ name: 'refuse', arguments: {} }), { content: [{ type: 'text', text: 'no, not today' }], isError: true });
  });

  test('arguments the schema rejects are an isError result listing each problem', async () => {
    const result = (await client.callTool({ name: 'echo', arguments: { text: 3 } })) as { content: { text: string }[]; isError: boolean };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /args\.text: must be string/);
  });

  test('a long tool sends progress notifications: counting up, with the title and the rendered line', async () => {
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'steps', arguments: { count: 6 } }, CallToolResultSchema, { onprogress: (update) => progress.push(update) });
    assert.equal((result.content as { text: string }[])[0]!.text, 'stepped');
    assert.ok(progress.length >= 3, `${progress.length} progress notifications`);
    progress.forEach((update, i) => assert.equal(update.progress, i + 1));
    assert.ok(progress.every((update) => /^stepping(: step \d)?$/.test(update.message ?? '')), JSON.stringify(progress));
    assert.ok(progress.some((update) => /: step \d$/.test(update.message ?? '')));
  });

  test('cancelling a call stops it and leaves no process behind', async () => {
    const seconds = uniqueSeconds();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'stuck', arguments: { seconds } }, CallToolResultSchema, { signal: controller.signal });
    assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length > 0, 5000));
    controller.abort();
    await assert.rejects(pending);
    assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0), liveProcesses(`sleep ${seconds}`).join('\n'));
    assert.deepEqual(await client.callTool({ name: 'echo', arguments: { text: 'still serving' } }), { content: [{ type: 'text', text: 'still serving' }], isError: false });
  });

  test('an edit under --watch sends tools/list_changed and the new tool is listed', async () => {
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    writeFileSync(file, `${TOOLS}\nagent.on('discover_tools', function(r) r:add { name = 'added', description = 'New.', run = function() return 'new' end } end)\n`);
    await changed;
    // An editor's save can reach the watcher as several changes, so more than one reload (and
    // notification) may follow; the new tool is there once the last one has loaded.
    let names: string[] = [];
    for (let tries = 0; tries < 50 && !names.includes('added'); tries++) {
      names = (await client.listTools()).tools.map((tool) => tool.name);
      if (!names.includes('added')) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(names.includes('added'), names.join(', '));
  });
});
