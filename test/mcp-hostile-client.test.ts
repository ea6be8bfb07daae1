// `moonpool mcp`'s direct path (plain messages served past the SDK) against a hostile client over
// raw JSON-RPC: ids reused while in flight or shared with the SDK's path, cancels that name the
// wrong thing, a `__proto__` argument, progress around answers and cancels, and a client that
// closes stdin, closes its end of stdout, stops reading, or a server told to stop mid-calls.
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { CLI, eventually, liveProcesses, tempDir, uniqueSeconds } from './helpers.js';

const TOOLS = `
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'keys',
    description = 'Lists the names of its arguments.',
    run = function(args)
      local names = {}
      for name in pairs(args) do names[#names + 1] = name end
      table.sort(names)
      return table.concat(names, ',')
    end,
  }
  registry:add {
    name = 'nap',
    description = 'Sleeps in a child process.',
    parameters = { type = 'object', properties = { seconds = { type = 'string' } }, required = { 'seconds' } },
    run = function(args) capture('sleep ' .. args.seconds) return 'woke' end,
  }
  registry:add {
    name = 'counts',
    description = 'Shows a growing count, then returns (or shows forever).',
    parameters = { type = 'object', properties = { upto = { type = 'integer' } } },
    run = function(args, ctx)
      local i = 0
      while args.upto == nil or i < args.upto do
        i = i + 1
        ctx:show { progress = { done = i } }
      end
      return 'counted'
    end,
  }
  registry:add {
    name = 'protofield',
    description = 'Returns structured data with a field named __proto__.',
    run = function() return { content = 'made', structured = { ['__proto__'] = { polluted = true }, a = 1 } } end,
  }
  registry:add {
    name = 'long',
    description = 'Returns 20,000 characters and says so on stderr.',
    run = function() print('long done') return string.rep('y', 20000) end,
  }
end)
`;

interface Message {
  id?: unknown;
  method?: string;
  params?: { progressToken?: unknown };
  result?: { content?: { text: string }[] };
  error?: { code: number; message: string };
}

/** Every server a test started: one whose test failed half-way is killed at the end. */
const started: ChildProcessWithoutNullStreams[] = [];
after(() => {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A `moonpool mcp` process driven over raw JSON-RPC lines. */
class RawServer {
  readonly process: ChildProcessWithoutNullStreams;
  readonly messages: Message[] = [];
  stderr = '';
  private waiting: (() => void)[] = [];
  private readonly reading: boolean;

  constructor(dir: string, state: string, { read = true } = {}) {
    this.reading = read;
    const config = join(dir, 'init.lua');
    this.process = spawn(
      process.execPath,
      [CLI, 'mcp', '--config', config, '--state-dir', join(dir, state), '--cwd', dir],
      { env: { ...process.env, MOONPOOL_CONFIG: '' } },
    );
    started.push(this.process);
    this.process.stderr.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString();
      this.wake();
    });
    if (read) {
      createInterface({ input: this.process.stdout }).on('line', (line) => {
        this.messages.push(JSON.parse(line) as Message);
        this.wake();
      });
    }
  }

  send(...messages: object[]): void {
    this.process.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  }

  call(id: string | number, name: string, args: object, extra: object = {}): void {
    this.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...extra } });
  }

  cancel(requestId: string | number): void {
    this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } });
  }

  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  async answer(id: unknown): Promise<Message> {
    await this.until(() => this.messages.some((message) => message.id === id && message.method === undefined));
    return this.messages.find((message) => message.id === id && message.method === undefined)!;
  }

  /** A ping's answer: every line the server sent before it has arrived too. */
  async ping(id: string): Promise<void> {
    this.send({ jsonrpc: '2.0', id, method: 'ping' });
    await this.answer(id);
  }

  async initialize(): Promise<void> {
    this.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    if (this.reading) await this.answer('init');
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  async exited(): Promise<void> {
    if (this.process.exitCode === null && this.process.signalCode === null) await once(this.process, 'exit');
  }

  answered(id: unknown): boolean {
    return this.messages.some((message) => message.id === id);
  }

  private wake(): void {
    this.waiting.splice(0).forEach((resolve) => resolve());
  }
}

/** The `sleep` processes of naps for `seconds` (not the shells that start them). */
const sleeping = (seconds: string): string[] =>
  liveProcesses(`sleep ${seconds}`).filter((line) => /^\S+\s+sleep /.test(line));

describe('moonpool mcp direct path against a hostile client', () => {
  const dir = tempDir();
  let server: RawServer;

  before(async () => {
    writeFileSync(join(dir, 'init.lua'), TOOLS);
    server = new RawServer(dir, 'shared');
    await server.initialize();
  });

  after(async () => {
    server.process.stdin.end();
    await server.exited();
  });

  /**
   * Two naps sent under `id` (the second with `extra` params) both run; one cancel of `id` stops both, unanswered.
   * The second nap starts a worker of its own: at load 15 on 2 CPUs that took over 10 s, so the waits are longer.
   */
  async function cancelTwoUnderOneId(id: string, extra?: Record<string, unknown>): Promise<void> {
    const seconds = uniqueSeconds();
    server.call(id, 'nap', { seconds });
    server.call(id, 'nap', { seconds }, extra);
    assert.ok(await eventually(() => sleeping(seconds).length === 2, 60_000), sleeping(seconds).join('\n'));
    server.cancel(id);
    assert.ok(await eventually(() => sleeping(seconds).length === 0, 60_000), sleeping(seconds).join('\n'));
    await server.ping(`after-${id}`);
    assert.ok(!server.answered(id), 'a cancelled call was answered');
  }

  test('two calls under one id both run, and cancelling the id stops both, unanswered', () =>
    cancelTwoUnderOneId('twice'));

  test('a cancel naming an id in flight on both paths stops the direct call and the SDK one', () =>
    cancelTwoUnderOneId('both', { _meta: { 'example.com/trace': 'sdk path' } }));

  test('a cancel sent with an id is a request (-32601) and stops nothing; a cancel after the answer, before the call or for an unknown id changes nothing', async () => {
    server.call('napping', 'nap', { seconds: '0.3' });
    server.send({
      jsonrpc: '2.0',
      id: 'not-a-notification',
      method: 'notifications/cancelled',
      params: { requestId: 'napping' },
    });
    server.cancel('never-sent');
    assert.equal((await server.answer('not-a-notification')).error?.code, -32601);
    assert.equal((await server.answer('napping')).result?.content?.[0]?.text, 'woke');
    server.cancel('napping');
    // A cancel that comes before its call names nothing yet: the call runs.
    server.cancel('napping-again');
    server.call('napping-again', 'nap', { seconds: '0.1' });
    assert.equal((await server.answer('napping-again')).result?.content?.[0]?.text, 'woke');
  });

  test('arguments that are null or a list, a name that is not a string, a _meta that is not an object: -32602 naming the field, as on the SDK path', async () => {
    server.process.stdin.write(
      [
        '{"jsonrpc":"2.0","id":"null-args","method":"tools/call","params":{"name":"keys","arguments":null}}',
        '{"jsonrpc":"2.0","id":"list-args","method":"tools/call","params":{"name":"keys","arguments":[1]}}',
        '{"jsonrpc":"2.0","id":"number-name","method":"tools/call","params":{"name":7,"arguments":{}}}',
        '{"jsonrpc":"2.0","id":"list-meta","method":"tools/call","params":{"name":"keys","_meta":[]}}',
        '',
      ].join('\n'),
    );
    const fields = {
      'null-args': 'params.arguments',
      'list-args': 'params.arguments',
      'number-name': 'params.name',
      'list-meta': 'params._meta',
    };
    for (const [id, field] of Object.entries(fields)) {
      const { error } = await server.answer(id);
      assert.equal(error?.code, -32602, id);
      assert.ok(error.message.startsWith(`Invalid params: ${field}: `), `${id}: ${error.message}`);
    }
  });

  test('an argument named __proto__ is refused with -32602 on the direct path and on the SDK path alike; elsewhere it is an argument', async () => {
    const proto = '{"__proto__":{"polluted":1},"b":2}';
    server.process.stdin.write(
      `{"jsonrpc":"2.0","id":"proto-direct","method":"tools/call","params":{"name":"keys","arguments":${proto}}}\n`,
    );
    server.process.stdin.write(
      `{"jsonrpc":"2.0","id":"proto-sdk","method":"tools/call","params":{"name":"keys","arguments":${proto},"_meta":{"k":1}}}\n`,
    );
    server.process.stdin.write(
      `{"jsonrpc":"2.0","id":"proto-nested","method":"tools/call","params":{"name":"keys","arguments":{"a":${proto}}}}\n`,
    );
    const refusal = {
      code: -32602,
      message: 'Invalid params: params.arguments: "__proto__" cannot be an argument name',
    };
    assert.deepEqual((await server.answer('proto-direct')).error, refusal);
    assert.deepEqual((await server.answer('proto-sdk')).error, refusal);
    assert.equal((await server.answer('proto-nested')).result?.content?.[0]?.text, 'a');
  });

  test('a cancel the SDK would not act on (a reason that is not a string, an extra member) stops no call on either path', async () => {
    server.call('kept', 'nap', { seconds: '0.3' });
    server.call('kept', 'nap', { seconds: '0.3' }, { _meta: { 'example.com/trace': 'sdk path' } });
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'kept', reason: 5 } });
    server.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'kept' }, extra: true });
    await server.until(() => server.messages.filter((message) => message.id === 'kept').length === 2);
    assert.deepEqual(
      server.messages.filter((message) => message.id === 'kept').map((message) => message.result?.content?.[0]?.text),
      ['woke', 'woke'],
    );
  });

  test('a structured result with a field named __proto__ is the same error result on the direct path and on the SDK path', async () => {
    server.call('field-direct', 'protofield', {});
    server.call('field-sdk', 'protofield', {}, { _meta: { 'example.com/trace': 'sdk path' } });
    const expected = {
      content: [
        {
          type: 'text',
          text: 'protofield: run\'s structured result is not valid:\nstructured: "__proto__" cannot be a field name (MCP clients drop it)',
        },
      ],
      isError: true,
    };
    assert.deepEqual((await server.answer('field-direct')).result, expected);
    assert.deepEqual((await server.answer('field-sdk')).result, expected);
  });

  test('progress on the direct path never comes after its answer', async () => {
    for (let i = 0; i < 10; i++)
      server.call(`counted-${i}`, 'counts', { upto: 20_000 }, { _meta: { progressToken: `count-${i}` } });
    for (let i = 0; i < 10; i++) await server.answer(`counted-${i}`);
    await server.ping('after-counted');
    for (let i = 0; i < 10; i++) {
      const answeredAt = server.messages.findIndex((message) => message.id === `counted-${i}`);
      const late = server.messages
        .slice(answeredAt)
        .filter((message) => message.params?.progressToken === `count-${i}`);
      assert.deepEqual(late, [], `counted-${i}`);
    }
  });

  test('progress on the direct path stops at the cancel', async () => {
    const progressOf = (): Message[] =>
      server.messages.filter((message) => message.params?.progressToken === 'forever');
    server.call('counting', 'counts', {}, { _meta: { progressToken: 'forever' } });
    await server.until(() => progressOf().length >= 2);
    server.cancel('counting');
    // What was sent before the cancel was read arrives before this answer; nothing may follow it.
    await server.ping('cancel-read');
    const before = progressOf().length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await server.ping('after-cancel');
    assert.equal(progressOf().length, before);
    assert.ok(!server.answered('counting'), 'the cancelled call was answered');
  });
});

describe('moonpool mcp ends with its client, whatever the client does', () => {
  const dir = tempDir();
  before(() => writeFileSync(join(dir, 'init.lua'), TOOLS));

  test('closing stdin stops every direct call, answers none, and the server exits leaving no process', async () => {
    const server = new RawServer(dir, 'stdin-end');
    await server.initialize();
    const seconds = uniqueSeconds();
    for (let i = 0; i < 2; i++) server.call(`left-${i}`, 'nap', { seconds });
    assert.ok(await eventually(() => sleeping(seconds).length === 2), sleeping(seconds).join('\n'));
    server.process.stdin.end();
    await server.exited();
    assert.equal(server.process.exitCode, 0);
    assert.deepEqual(sleeping(seconds), []);
    assert.ok(!['left-0', 'left-1'].some((id) => server.answered(id)));
  });

  test('SIGTERM, even twice, while direct calls run: the server exits 0 and leaves no process', async () => {
    const server = new RawServer(dir, 'sigterm');
    await server.initialize();
    const seconds = uniqueSeconds();
    for (let i = 0; i < 2; i++) server.call(`term-${i}`, 'nap', { seconds });
    assert.ok(await eventually(() => sleeping(seconds).length === 2), sleeping(seconds).join('\n'));
    // A second signal while the server closes (a supervisor's retry, Ctrl-C twice) changes nothing.
    server.process.kill('SIGTERM');
    server.process.kill('SIGTERM');
    await server.exited();
    assert.equal(server.process.exitCode, 0);
    assert.deepEqual(sleeping(seconds), []);
  });

  test('a client that closes its end of stdout (EPIPE) gets its calls stopped and the server exits', async () => {
    const server = new RawServer(dir, 'epipe');
    await server.initialize();
    const seconds = uniqueSeconds();
    server.call('orphan', 'nap', { seconds });
    assert.ok(await eventually(() => sleeping(seconds).length === 1), sleeping(seconds).join('\n'));
    server.process.stdout.destroy();
    // The next line out meets the closed pipe.
    server.send({ jsonrpc: '2.0', id: 'into-the-void', method: 'ping' });
    await server.exited();
    assert.equal(server.process.exitCode, 0);
    assert.deepEqual(sleeping(seconds), []);
  });

  test('a client that stops reading stdout and closes stdin does not keep the server alive', async () => {
    const server = new RawServer(dir, 'unread', { read: false });
    server.process.stdout.pause();
    await server.initialize();
    // 200 answers of 20,000 characters: far more than the pipe and the client's buffer hold (and
    // fewer than a module's 256 calls that may wait).
    for (let i = 0; i < 200; i++) server.call(`unread-${i}`, 'long', {});
    await server.until(() => server.stderr.split('long done').length > 200);
    server.process.stdin.end();
    await server.exited();
    assert.equal(server.process.exitCode, 0);
  });
});
