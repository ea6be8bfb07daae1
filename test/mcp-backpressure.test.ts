// The MCP server's output against a client that stops reading or goes away: lines wait for a full
// pipe to drain and then go out whole and in order; past a limit of waiting output no request is
// read until the client reads; a call's progress holds one notification while it waits, not one per
// state; an output that fails closes the connection and holds nothing more.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../core/index.js';
import {
  LineTransport,
  MAX_HELD_INPUT_BYTES,
  MAX_UNWRITTEN_OUTPUT_CHARS,
  MAX_WRITE_CHARS,
} from '../ui/mcp/line-transport.js';
import { ProgressReporter, type ProgressUpdate } from '../ui/mcp/progress-reporter.js';
import { eventually } from './helpers.js';

/** A pipe whose reader takes a chunk only when told to. */
class HeldPipe extends Writable {
  readonly chunks: string[] = [];
  private release: (() => void) | undefined;

  constructor() {
    super({ highWaterMark: 1, decodeStrings: false });
  }

  override _write(chunk: string, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk);
    this.release = done;
  }

  takeOne(): void {
    this.release?.();
  }
}

const ping = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'ping' });

test('lines sent while the pipe is full wait for it to drain, then go out whole, in order, in one write', async () => {
  const output = new HeldPipe();
  const transport = new LineTransport(new PassThrough(), output, () => undefined);
  transport.start();
  const first = transport.send(ping(1));
  await eventually(() => output.chunks.length === 1);
  const rest = [2, 3, 4].map((id) => transport.send(ping(id)));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(output.chunks.length, 1, 'a line was written into a full pipe');
  output.takeOne();
  await first;
  await eventually(() => output.chunks.length === 2);
  output.takeOne();
  await Promise.all(rest);
  assert.deepEqual(output.chunks, [
    '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    [2, 3, 4].map((id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`).join(''),
  ]);
});

test('while more output than the limit waits for a client that does not read, its requests wait unread', async () => {
  const input = new PassThrough();
  const output = new HeldPipe();
  const taken: unknown[] = [];
  const transport = new LineTransport(input, output, (message) => taken.push(message));
  transport.start();
  const first = transport.send(ping(1));
  await eventually(() => output.chunks.length === 1);
  const big = transport.send({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { data: 'x'.repeat(MAX_UNWRITTEN_OUTPUT_CHARS) },
  });
  input.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t"}}\n');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(taken, [], 'a request was read while the output waited');
  output.takeOne();
  await first;
  await eventually(() => output.chunks.length === 2);
  output.takeOne();
  await big;
  assert.ok(await eventually(() => taken.length === 1));
});

test('an output that fails (EPIPE) closes the connection, and later lines are dropped, not held', async () => {
  const output = new Writable({
    write: (_chunk, _encoding, done) => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })),
  });
  let closed = 0;
  const transport = new LineTransport(
    new PassThrough(),
    output,
    () => undefined,
    () => void closed++,
  );
  transport.start();
  await transport.send(ping(1));
  await eventually(() => closed === 1);
  // Resolves at once, as nothing will ever drain.
  await Promise.all(Array.from({ length: 1000 }, (_, id) => transport.send(ping(id))));
  assert.equal(closed, 1);
});

test("a call's progress waiting on a full pipe holds one notification; later states replace each other", async () => {
  const sent: ProgressUpdate[] = [];
  let pipeDrained: () => void = () => undefined;
  const reporter = new ProgressReporter({} as ToolHost, 'tool', (update) => {
    sent.push(update);
    return new Promise((resolve) => (pipeDrained = resolve));
  });
  reporter.setTitle('title 0');
  await eventually(() => sent.length === 1);
  for (let i = 1; i <= 1000; i++) {
    reporter.setTitle(`title ${i}`);
    if (i % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 30));
  }
  assert.equal(sent.length, 1);
  pipeDrained();
  await eventually(() => sent.length === 2);
  assert.equal(sent[1]?.message, 'title 1000');
  reporter.end();
});

test('an answer that cannot be serialised is answered with an error, and what comes after still goes out', async () => {
  const output = new HeldPipe();
  const transport = new LineTransport(new PassThrough(), output, () => undefined);
  transport.start();
  const unserialisable = { jsonrpc: '2.0', id: 7, result: { count: 1n } } as unknown as JSONRPCMessage;
  const sent = [transport.send(unserialisable), transport.send(ping(8))];
  await eventually(() => output.chunks.length === 1);
  output.takeOne();
  await Promise.all(sent);
  const lines = output.chunks
    .join('')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: number; error?: { code: number; message: string } });
  assert.deepEqual(
    lines.map((line) => line.id),
    [7, 8],
  );
  assert.equal(lines[0]!.error?.code, -32603);
  assert.match(lines[0]!.error?.message ?? '', /the answer could not be sent/);
});

test('lines waiting together go out in writes of at most MAX_WRITE_CHARS, a longer line alone, all in order', async () => {
  const output = new HeldPipe();
  const transport = new LineTransport(new PassThrough(), output, () => undefined);
  transport.start();
  const text = (id: number, length: number): JSONRPCMessage => ({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { id, data: 'z'.repeat(length) },
  });
  const messages = [
    text(1, MAX_WRITE_CHARS * 0.6),
    text(2, MAX_WRITE_CHARS * 0.3),
    text(3, MAX_WRITE_CHARS * 0.6),
    text(4, MAX_WRITE_CHARS * 2),
    text(5, 10),
  ];
  let written = false;
  const sent = Promise.all(messages.map((message) => transport.send(message))).then(() => (written = true));
  for (let taken = 0; !written; taken++) {
    await eventually(() => written || output.chunks.length > taken);
    output.takeOne();
  }
  await sent;
  const longLine = JSON.stringify(messages[3]).length + 1;
  for (const chunk of output.chunks)
    assert.ok(chunk.length <= MAX_WRITE_CHARS || chunk.length === longLine, `a write of ${chunk.length} characters`);
  assert.equal(output.chunks.join(''), messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
});

test('a client that closes its input while output waits past the limit is seen: the connection closes', async () => {
  const input = new PassThrough();
  const output = new HeldPipe();
  let closed = 0;
  const transport = new LineTransport(
    input,
    output,
    () => undefined,
    () => void closed++,
  );
  transport.start();
  void transport.send(ping(1));
  await eventually(() => output.chunks.length === 1);
  void transport.send({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { data: 'x'.repeat(MAX_UNWRITTEN_OUTPUT_CHARS) },
  });
  input.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  input.end();
  assert.ok(await eventually(() => closed === 1), 'the end of the input was never seen');
});

test('past MAX_HELD_INPUT_BYTES of requests held while output waits, the input is paused', async () => {
  const input = new PassThrough();
  const output = new HeldPipe();
  const transport = new LineTransport(input, output, () => undefined);
  transport.start();
  void transport.send(ping(1));
  await eventually(() => output.chunks.length === 1);
  void transport.send({
    jsonrpc: '2.0',
    method: 'notifications/message',
    params: { data: 'x'.repeat(MAX_UNWRITTEN_OUTPUT_CHARS) },
  });
  const line = `${JSON.stringify(ping(2))}\n`;
  const chunk = line.repeat(Math.ceil(65_536 / line.length));
  for (let written = 0; written < MAX_HELD_INPUT_BYTES * 2; written += chunk.length) input.write(chunk);
  await eventually(() => input.isPaused());
  assert.ok(input.isPaused());
  assert.ok(input.readableLength > 0, 'every request was read while the output waited');
});
