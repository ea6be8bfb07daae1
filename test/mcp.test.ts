// `moonpool mcp` driven by the MCP SDK's own client over stdio: list, results and errors,
// arguments the schema rejects, progress for a long tool, cancellation that leaves no process,
// tools/list_changed after an edit under --watch; annotations, structured results, spilled
// results as resource links that resources/read serves (and nothing else), progress totals.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, eventually, FIXTURES, liveProcesses, tempDir, uniqueSeconds } from './helpers.js';

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
    assert.deepEqual(
      tools.map((tool) => tool.name),
      ['echo', 'refuse', 'steps', 'stuck'],
    );
    assert.deepEqual(tools[0]!.inputSchema, {
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    });
  });

  test('a successful call returns text content; a tool error is isError', async () => {
    assert.deepEqual(await client.callTool({ name: 'echo', arguments: { text: 'hello' } }), {
      content: [{ type: 'text', text: 'hello' }],
      isError: false,
    });
    assert.deepEqual(await client.callTool({ name: 'refuse', arguments: {} }), {
      content: [{ type: 'text', text: 'no, not today' }],
      isError: true,
    });
  });

  test('arguments the schema rejects are an isError result listing each problem', async () => {
    const result = (await client.callTool({ name: 'echo', arguments: { text: 3 } })) as {
      content: { text: string }[];
      isError: boolean;
    };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /args\.text: must be string/);
  });

  test('a long tool sends progress notifications: counting up, with the title and the rendered line', async () => {
    const progress: Progress[] = [];
    const result = await client.callTool({ name: 'steps', arguments: { count: 6 } }, CallToolResultSchema, {
      onprogress: (update) => progress.push(update),
    });
    assert.equal((result.content as { text: string }[])[0]!.text, 'stepped');
    assert.ok(progress.length >= 3, `${progress.length} progress notifications`);
    progress.forEach((update, i) => assert.equal(update.progress, i + 1));
    assert.ok(
      progress.every((update) => /^stepping(: step \d)?$/.test(update.message ?? '')),
      JSON.stringify(progress),
    );
    assert.ok(progress.some((update) => /: step \d$/.test(update.message ?? '')));
  });

  test('cancelling a call stops it and leaves no process behind', async () => {
    const seconds = uniqueSeconds();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'stuck', arguments: { seconds } }, CallToolResultSchema, {
      signal: controller.signal,
    });
    assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length > 0, 5000));
    controller.abort();
    await assert.rejects(pending);
    assert.ok(
      await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
      liveProcesses(`sleep ${seconds}`).join('\n'),
    );
    assert.deepEqual(await client.callTool({ name: 'echo', arguments: { text: 'still serving' } }), {
      content: [{ type: 'text', text: 'still serving' }],
      isError: false,
    });
  });

  test('an edit under --watch sends tools/list_changed and the new tool is listed', async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    writeFileSync(
      file,
      `${TOOLS}\nagent.on('discover_tools', function(r) r:add { name = 'added', description = 'New.', run = function() return 'new' end } end)\n`,
    );
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

describe('moonpool mcp results beyond plain text', () => {
  const dir = tempDir();
  const secret = join(dir, 'secret.txt');
  let client: Client;

  const fileUri = (path: string): string => pathToFileURL(path).href;
  const readError = async (uri: string): Promise<{ code: number; message: string }> => {
    try {
      await client.readResource({ uri });
    } catch (error) {
      return error as { code: number; message: string };
    }
    assert.fail(`${uri} was served`);
  };

  before(async () => {
    writeFileSync(secret, 'not for the client');
    const config = join(FIXTURES, 'mcp-results', 'init.lua');
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--config', config, '--state-dir', join(dir, 'state'), '--cwd', dir],
      env: { ...process.env, MOONPOOL_CONFIG: '' },
      stderr: 'pipe',
    });
    client = new Client({ name: 'moonpool-test', version: '1.0.0' });
    await client.connect(transport);
  });

  after(async () => {
    await client.close();
  });

  test('tools/list carries the title, the annotations as MCP hints and the output schema', async () => {
    const weather = (await client.listTools()).tools.find((tool) => tool.name === 'weather');
    assert.equal(weather?.title, 'Weather');
    assert.deepEqual(weather.annotations, {
      title: 'Weather',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(weather.outputSchema?.required, ['city', 'celsius']);
  });

  test('a structured result comes as structuredContent beside its text, an empty table as {} where the schema wants an object', async () => {
    const result = await client.callTool({ name: 'weather', arguments: { city: 'Paris' } });
    assert.deepEqual(result, {
      content: [{ type: 'text', text: 'Paris: 21.5 C' }],
      structuredContent: { city: 'Paris', celsius: 21.5, tags: [], extra: {} },
      isError: false,
    });
  });

  test('a structured result that does not match the output schema is an error naming the path', async () => {
    const result = (await client.callTool({ name: 'weather', arguments: { city: 'Atlantis' } })) as {
      content: { text: string }[];
      isError: boolean;
    };
    assert.equal(result.isError, true);
    assert.equal(
      result.content[0]!.text,
      "weather: run's structured result is not valid:\nstructured.celsius: must be number",
    );
    assert.equal('structuredContent' in result, false);
  });

  test('a tool with an output schema that returns plain text is an error saying structured is required', async () => {
    const result = (await client.callTool({ name: 'weather', arguments: { city: 'Nowhere' } })) as {
      content: { text: string }[];
      isError: boolean;
    };
    assert.equal(result.isError, true);
    assert.match(result.content[0]!.text, /structured: is required, since the tool declares `output_schema`/);
  });

  test('a spilled result carries a resource_link that resources/read serves whole', async () => {
    const result = (await client.callTool({ name: 'listing', arguments: { lines: 3000 } })) as {
      content: { type: string; text?: string; uri?: string; name?: string }[];
    };
    const link = result.content.find((item) => item.type === 'resource_link');
    assert.ok(link?.uri, JSON.stringify(result.content.map((item) => item.type)));
    assert.match(link.name ?? '', /^listing-.*\.txt$/);
    assert.ok(result.content[0]!.text?.includes(`the full output is in `));
    const read = await client.readResource({ uri: link.uri });
    const whole = read.contents[0] as { uri: string; text: string };
    assert.equal(whole.uri, link.uri);
    assert.equal(whole.text.split('\n').length, 3000);
    assert.ok(whole.text.endsWith('line 3000'));
    assert.ok((await client.listResources()).resources.some((resource) => resource.uri === link.uri));
  });

  test('resources/read serves nothing outside the spill directory: not a link out, a FIFO, .., the state dir, another session or /etc', async () => {
    const planted = (await client.callTool({ name: 'plant', arguments: { target: secret } })) as {
      content: { text: string }[];
    };
    const spillDir = planted.content[0]!.text;
    const otherSession = join(dir, 'state', 'spill', 'another-session');
    mkdirSync(otherSession, { recursive: true });
    writeFileSync(join(otherSession, 'listing-x-1.txt'), 'another session');
    assert.equal(
      ((await client.readResource({ uri: fileUri(join(spillDir, 'note.txt')) })).contents[0] as { text: string }).text,
      'a note',
    );
    const refused = [
      fileUri(join(spillDir, 'outside.txt')),
      fileUri(join(spillDir, 'outside-dir', 'secret.txt')),
      fileUri(join(spillDir, 'pipe.txt')),
      `${fileUri(spillDir)}/../../sessions`,
      `${fileUri(spillDir)}/%2e%2e/%2e%2e/sessions`,
      fileUri(join(dir, 'state')),
      fileUri(join(otherSession, 'listing-x-1.txt')),
      fileUri(secret),
      'file:///etc/passwd',
      'https://example.com/x.txt',
    ];
    for (const uri of refused) {
      const error = await readError(uri);
      assert.equal(error.code, -32002, `${uri}: ${error.message}`);
    }
    const listed = (await client.listResources()).resources.map((resource) => resource.name);
    assert.ok(listed.includes('note.txt'));
    assert.ok(!listed.includes('outside.txt') && !listed.includes('pipe.txt'), listed.join(', '));
  });

  test('a spill directory replaced by a link serves and lists nothing', async () => {
    const planted = (await client.callTool({ name: 'plant', arguments: { target: secret } })) as {
      content: { text: string }[];
    };
    const spillDir = planted.content[0]!.text;
    renameSync(spillDir, `${spillDir}-moved`);
    symlinkSync(`${spillDir}-moved`, spillDir);
    try {
      const error = await readError(fileUri(join(spillDir, 'note.txt')));
      assert.equal(error.code, -32002, error.message);
      assert.deepEqual((await client.listResources()).resources, []);
    } finally {
      unlinkSync(spillDir);
      renameSync(`${spillDir}-moved`, spillDir);
    }
  });

  test('a uri that is not a URI is -32602 naming params.uri', async () => {
    const error = await readError('not a uri');
    assert.equal(error.code, -32602);
    assert.match(error.message, /params\.uri: "not a uri" is not a URI/);
  });

  test('progress notifications carry done and total from state.progress', async () => {
    const progress: Progress[] = [];
    await client.callTool({ name: 'counted', arguments: { count: 4 } }, CallToolResultSchema, {
      onprogress: (update) => progress.push(update),
    });
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.ok(
      progress.every((update) => update.total === 4),
      JSON.stringify(progress),
    );
    progress.forEach((update, i) =>
      assert.ok(i === 0 || update.progress > progress[i - 1]!.progress, JSON.stringify(progress)),
    );
    assert.equal(progress.at(-1)?.progress, 4);
  });

  test('a state whose done stays or goes back sends no notification until done grows: progress only increases', async () => {
    const progress: Progress[] = [];
    await client.callTool({ name: 'stalled', arguments: {} }, CallToolResultSchema, {
      onprogress: (update) => progress.push(update),
    });
    assert.deepEqual(
      progress.map((update) => update.progress),
      [1, 2],
      JSON.stringify(progress),
    );
    assert.equal(progress[1]!.total, 2);
  });
});

describe('moonpool mcp on a config that does not load', () => {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  const MISSING_COMMA = TOOLS.replace("description = 'Returns its text.',", "description = 'Returns its text.'");

  test('without --watch, nothing could ever be served: exit 2 at start, saying why', () => {
    writeFileSync(file, MISSING_COMMA);
    const run = spawnSync(process.execPath, [CLI, 'mcp', '--config', file, '--state-dir', join(dir, 'state')], {
      encoding: 'utf8',
      input: '',
      env: { ...process.env, MOONPOOL_CONFIG: '' },
      timeout: 30_000,
    });
    assert.equal(run.status, 2, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /init\.lua:6: '}' expected .*near 'parameters' \(a comma missing after the value on line 5\?\)\n/,
    );
    assert.match(
      run.stderr,
      /^moonpool: the config did not load, so mcp has no tools to serve \(with --watch it waits for a fix\)$/m,
    );
  });

  test("with --watch, initialize's instructions tell the client why no tools are served, until a fix loads them", async () => {
    writeFileSync(file, MISSING_COMMA);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, 'mcp', '--config', file, '--watch', '--state-dir', join(dir, 'state'), '--cwd', dir],
      env: { ...process.env, MOONPOOL_CONFIG: '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'moonpool-test', version: '1.0.0' });
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()),
    );
    await client.connect(transport);
    try {
      assert.equal(
        client.getInstructions(),
        `moonpool serves no tools yet: its config ${file} did not load. It is watched: once it loads, its tools are listed (tools/list_changed).\n` +
          "init.lua:6: '}' expected (to close '{' at line 3) near 'parameters' (a comma missing after the value on line 5?)",
      );
      assert.deepEqual((await client.listTools()).tools, []);
      writeFileSync(file, TOOLS);
      await changed;
      let names: string[] = [];
      for (let tries = 0; tries < 50 && !names.includes('echo'); tries++) {
        names = (await client.listTools()).tools.map((tool) => tool.name);
        if (!names.includes('echo')) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(names.includes('echo'), names.join(', '));
    } finally {
      await client.close();
    }
  });
});
