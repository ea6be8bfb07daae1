// `moonpool mcp` answers every request: raw JSON-RPC lines with ids the SDK cannot use, no method,
// bad params, non-JSON or an over-long line each get an error, while valid requests (raw and from
// the SDK's own client) keep being served.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, tempDir } from './helpers.js';

const TOOLS = `
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'ranges',
    description = 'Takes a range like 12-34.',
    parameters = { type = 'object', properties = { range = { type = 'string', pattern = '\\\\d+-\\\\d+' } }, required = { 'range' } },
    run = function(args) return 'range ' .. args.range end,
  }
  registry:add {
    name = 'spin',
    description = 'Never returns.',
    parameters = { type = 'object', properties = {} },
    run = function() while true do end end,
  }
end)
`;

interface Answer {
  id: unknown;
  result?: { content?: { text: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

describe('moonpool mcp answers every request', () => {
  const dir = tempDir();
  const config = join(dir, 'init.lua');
  const args = (state: string) => [CLI, 'mcp', '--config', config, '--state-dir', join(dir, state), '--cwd', dir];
  let server: ChildProcessWithoutNullStreams;
  const answers: Answer[] = [];
  /** Methods of the notifications the server sent (progress of calls that waited for a worker). */
  const notifications: string[] = [];
  const waiting: (() => void)[] = [];

  const send = (line: string): void => void server.stdin.write(`${line}\n`);
  const nextAnswers = async (count: number): Promise<Answer[]> => {
    const start = answers.length;
    while (answers.length < start + count) await new Promise<void>((resolve) => waiting.push(resolve));
    return answers.slice(start, start + count);
  };

  before(async () => {
    writeFileSync(config, TOOLS);
    server = spawn(process.execPath, args('raw'), { env: { ...process.env, MOONPOOL_CONFIG: '' } });
    server.stderr.resume();
    createInterface({ input: server.stdout }).on('line', (line) => {
      const message = JSON.parse(line) as Answer & { method?: string };
      if (Object.hasOwn(message, 'id')) answers.push(message);
      else notifications.push(message.method ?? '');
      waiting.splice(0).forEach((resolve) => resolve());
    });
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
      }),
    );
    await nextAnswers(1);
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });

  after(async () => {
    server.stdin.end();
    if (server.exitCode === null) await once(server, 'exit');
  });

  test('a tool the server does not have is a -32602 error on both paths, not a tool result', async () => {
    // Plain params take the direct path; another `_meta` field takes the SDK's.
    send(
      JSON.stringify({ jsonrpc: '2.0', id: 'plain', method: 'tools/call', params: { name: 'nosuch', arguments: {} } }),
    );
    const [plain] = await nextAnswers(1);
    send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'sdk',
        method: 'tools/call',
        params: { name: 'nosuch', arguments: {}, _meta: { other: 1 } },
      }),
    );
    const [sdk] = await nextAnswers(1);
    for (const [reply, id] of [
      [plain, 'plain'],
      [sdk, 'sdk'],
    ] as const) {
      assert.equal(reply?.id, id);
      assert.equal(reply?.result, undefined, JSON.stringify(reply));
      assert.equal(reply?.error?.code, -32602);
      assert.match(reply.error.message, /nosuch/);
    }
  });

  test('each unusable id gets -32600 Invalid Request with id null', async () => {
    const ids = ['1e300', '1.5', 'null', '123456789012345678901234567890', 'true', '{"a":1}', '[1]'];
    for (const id of ids) send(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`);
    const replies = await nextAnswers(ids.length);
    for (const reply of replies) {
      assert.equal(reply.id, null);
      assert.equal(reply.error?.code, -32600);
      assert.match(reply.error.message, /^Invalid Request: the id is /);
    }
  });

  test('a request without a method, with params that are not an object, or without "jsonrpc" is answered with its id', async () => {
    send('{"jsonrpc":"2.0","id":7}');
    send('{"jsonrpc":"2.0","id":"eight","method":"tools/call","params":"ranges"}');
    send('{"id":9,"method":"tools/list"}');
    const replies = await nextAnswers(3);
    assert.deepEqual(
      replies.map((reply) => [reply.id, reply.error?.code]),
      [
        [7, -32600],
        ['eight', -32600],
        [9, -32600],
      ],
    );
  });

  test('a line that is not JSON gets -32700, a batch -32600, and notifications and empty lines no answer', async () => {
    send('not json at all');
    send('[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]');
    send('');
    send('{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}');
    send('{"jsonrpc":"2.0","id":10,"method":"tools/list"}');
    const replies = await nextAnswers(3);
    assert.deepEqual(
      replies.map((reply) => [reply.id, reply.error?.code ?? 'result']),
      [
        [null, -32700],
        [null, -32600],
        [10, 'result'],
      ],
    );
  });

  test('an unknown method gets -32601 and a tools/call with wrong params -32602 naming the field', async () => {
    send('{"jsonrpc":"2.0","id":11,"method":"tools/nope"}');
    send('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":5}}');
    send('{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"ranges","arguments":[1]}}');
    const replies = await nextAnswers(3);
    assert.deepEqual(
      replies.map((reply) => [reply.id, reply.error?.code]),
      [
        [11, -32601],
        [12, -32602],
        [13, -32602],
      ],
    );
    assert.match(replies[1]!.error!.message, /^Invalid params: params\.name: /);
    assert.match(replies[2]!.error!.message, /^Invalid params: params\.arguments: /);
  });

  test('a progressToken that is an object, null or a fraction gets -32602 saying it must be a string or an integer', async () => {
    send('{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{"_meta":{"progressToken":{}}}}');
    send(
      '{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"ranges","arguments":{"range":"1-2"},"_meta":{"progressToken":null}}}',
    );
    send('{"jsonrpc":"2.0","id":22,"method":"ping","params":{"_meta":{"progressToken":1.5}}}');
    const replies = await nextAnswers(3);
    assert.deepEqual(
      replies.map((reply) => [reply.id, reply.error?.code]),
      [
        [20, -32602],
        [21, -32602],
        [22, -32602],
      ],
    );
    assert.equal(
      replies[0]!.error?.message,
      'Invalid params: params._meta.progressToken: must be a string or an integer (got an object)',
    );
    assert.match(replies[1]!.error!.message, /progressToken: must be a string or an integer \(got null\)$/);
    assert.match(replies[2]!.error!.message, /progressToken: must be a string or an integer \(got the number 1\.5\)$/);
  });

  test('a request with a member JSON-RPC does not have gets -32600 naming it, not a params error', async () => {
    send('{"jsonrpc":"2.0","id":29,"method":"tools/list","extra":1}');
    const [reply] = await nextAnswers(1);
    assert.deepEqual(reply!.error, {
      code: -32600,
      message: 'Invalid Request: unknown member "extra"; a request has "jsonrpc", "id", "method" and "params"',
    });
  });

  test('initialize without its fields gets -32602 naming the first missing one, not an internal error', async () => {
    send('{"jsonrpc":"2.0","id":23,"method":"initialize","params":{}}');
    send(
      '{"jsonrpc":"2.0","id":24,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":[],"clientInfo":{"name":"x","version":"1"}}}',
    );
    const replies = await nextAnswers(2);
    assert.deepEqual(replies[0]!.error, {
      code: -32602,
      message: 'Invalid params: params.protocolVersion: is required',
    });
    assert.deepEqual(replies[1]!.error, {
      code: -32602,
      message: 'Invalid params: params.capabilities: must be an object (got an array)',
    });
  });

  test('resources/read, resources/list and ping with wrong params get -32602 in one line naming the field', async () => {
    send('{"jsonrpc":"2.0","id":25,"method":"resources/read","params":{}}');
    send('{"jsonrpc":"2.0","id":26,"method":"resources/list","params":{"cursor":5}}');
    send('{"jsonrpc":"2.0","id":27,"method":"ping","params":{"_meta":[]}}');
    send('{"jsonrpc":"2.0","id":28,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/related-task":5}}}');
    const replies = await nextAnswers(4);
    assert.deepEqual(
      replies.map((reply) => reply.error),
      [
        { code: -32602, message: 'Invalid params: params.uri: is required' },
        { code: -32602, message: 'Invalid params: params.cursor: must be a string (got the number 5)' },
        { code: -32602, message: 'Invalid params: params._meta: must be an object (got an array)' },
        {
          code: -32602,
          message:
            'Invalid params: params._meta["io.modelcontextprotocol/related-task"]: must be an object (got the number 5)',
        },
      ],
    );
  });

  test('a 33 MiB line is refused without being held, and the next request is served', async () => {
    const huge = `{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"ranges","arguments":{"range":"${'1'.repeat(33 * 1024 * 1024)}"}}}`;
    send(huge);
    send('{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"ranges","arguments":{"range":"1-2"}}}');
    const replies = await nextAnswers(2);
    assert.equal(replies[0]!.id, null);
    assert.match(replies[0]!.error?.message ?? '', /longer than 33554432 bytes/);
    assert.deepEqual(replies[1], {
      jsonrpc: '2.0',
      id: 14,
      result: { content: [{ type: 'text', text: 'range 1-2' }], isError: false },
    });
  });

  test('string and large safe-integer ids are answered with the same id; a hostile argument is invalid, not silence', async () => {
    send(
      `{"jsonrpc":"2.0","id":${Number.MAX_SAFE_INTEGER},"method":"tools/call","params":{"name":"ranges","arguments":{"range":"${'1'.repeat(4_000_000)}"}}}`,
    );
    send('{"jsonrpc":"2.0","id":"s-1","method":"tools/list"}');
    const replies = await nextAnswers(2);
    const byId = new Map(replies.map((reply) => [reply.id, reply]));
    assert.equal(byId.get(Number.MAX_SAFE_INTEGER)?.result?.isError, true);
    assert.match(
      byId.get(Number.MAX_SAFE_INTEGER)?.result?.content?.[0]?.text ?? '',
      /would take more work than one call's check may spend/,
    );
    assert.ok(byId.get('s-1')?.result);
  });

  test('many calls in one write are each answered once, alike whether plain or with extras the SDK serves', async () => {
    const call = (id: number, params: string): string =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"ranges","arguments":{"range":"${id}-9"}${params}}}`;
    const extras = [
      '',
      ',"_meta":{"progressToken":"p"}',
      ',"_meta":{"progressToken":3,"example.com/trace":"x"}',
      ',"extra":true',
    ];
    server.stdin.write(Array.from({ length: 40 }, (_, i) => `${call(100 + i, extras[i % extras.length]!)}\n`).join(''));
    const replies = await nextAnswers(40);
    // Calls with a progress token that wait for a worker are told so in progress notifications.
    assert.ok(
      notifications.every((method) => method === 'notifications/progress'),
      notifications.join(),
    );
    assert.deepEqual(
      replies.map((reply) => reply.id as number).sort((a, b) => a - b),
      Array.from({ length: 40 }, (_, i) => 100 + i),
    );
    for (const reply of replies)
      assert.deepEqual(reply.result, {
        content: [{ type: 'text', text: `range ${String(reply.id)}-9` }],
        isError: false,
      });
  });

  test("the direct path answers initialize, ping, tools/list and resources/list as the SDK's path does", async () => {
    const init = (id: number, clientInfo: object): string =>
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo },
      });
    send(init(40, { name: 'raw', version: '1' }));
    send(init(41, { name: 'raw', version: '1', websiteUrl: 'https://example.com' }));
    send('{"jsonrpc":"2.0","id":42,"method":"tools/list"}');
    send('{"jsonrpc":"2.0","id":43,"method":"tools/list","params":{"_meta":{"example.com/trace":"x"}}}');
    send('{"jsonrpc":"2.0","id":44,"method":"resources/list"}');
    send('{"jsonrpc":"2.0","id":45,"method":"resources/list","params":{"_meta":{"example.com/trace":"x"}}}');
    send('{"jsonrpc":"2.0","id":46,"method":"ping"}');
    send('{"jsonrpc":"2.0","id":47,"method":"ping","params":{"_meta":{"example.com/trace":"x"}}}');
    const byId = new Map((await nextAnswers(8)).map((reply) => [reply.id, reply]));
    for (const [direct, sdk] of [
      [40, 41],
      [42, 43],
      [44, 45],
      [46, 47],
    ] as const) {
      assert.ok(byId.get(direct)?.result, JSON.stringify(byId.get(direct)));
      assert.deepEqual(byId.get(direct)?.result, byId.get(sdk)?.result);
    }
    assert.equal((byId.get(40)?.result as { protocolVersion?: string }).protocolVersion, '2025-03-26');
  });

  test('a call the client cancels gets no answer, and the next call is served', async () => {
    send('{"jsonrpc":"2.0","id":"spinning","method":"tools/call","params":{"name":"spin"}}');
    await new Promise((resolve) => setTimeout(resolve, 200));
    send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"spinning","reason":"test"}}');
    send('{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"ranges","arguments":{"range":"3-4"}}}');
    send('{"jsonrpc":"2.0","id":31,"method":"ping"}');
    const replies = await nextAnswers(2);
    assert.deepEqual(replies.map((reply) => reply.id).sort(), [30, 31]);
    assert.equal(replies.find((reply) => reply.id === 30)?.result?.content?.[0]?.text, 'range 3-4');
    send('{"jsonrpc":"2.0","id":32,"method":"ping"}');
    assert.deepEqual(
      (await nextAnswers(1)).map((reply) => reply.id),
      [32],
    );
    assert.ok(!answers.some((reply) => reply.id === 'spinning'), 'the cancelled call was answered');
  });

  test("the SDK's own client lists and calls tools", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: args('client'),
      env: { ...process.env, MOONPOOL_CONFIG: '' },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'moonpool-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      assert.deepEqual(
        (await client.listTools()).tools.map((tool) => tool.name),
        ['ranges', 'spin'],
      );
      assert.deepEqual(await client.callTool({ name: 'ranges', arguments: { range: '12-34' } }), {
        content: [{ type: 'text', text: 'range 12-34' }],
        isError: false,
      });
    } finally {
      await client.close();
    }
  });
});
