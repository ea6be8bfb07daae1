// The MCP server's output against a client that stops reading or goes away: lines wait for a full
// pipe to drain and then go out whole and in order; past a limit of waiting output no request is
// read until the client reads; a call's progress holds one notification while it waits, not one per
// state; an output that fails closes the connection and holds nothing more.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../core/index.js';
import { LineTransport, MAX_UNWRITTEN_OUTPUT_CHARS } from '../ui/mcp/line-transport.js';
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
  assert.deepEqual(output.chunks, ['{"jsonrpc":"2.0","id":1,"method":"ping"}\n', [2, 3, 4].map((id) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}\n`).join('')]);
});

test('while more output than the limit waits for a client that does not read, its requests wait unread', async () => {
  const input = new PassThrough();
  const output = new HeldPipe();
  const taken: unknown[] = [];
  const transport = new LineTransport(input, output, (message) => taken.push(message));
  transport.start();
  const first = transport.send(ping(1));
  await eventually(() => output.chunks.length === 1);
  const big = transport.send({ jsonrpc: '2.0', method: 'notifications/message', params: { data: 'x'.repeat(MAX_UNWRITTEN_OUTPUT_CHARS) } });
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
  const output = new Writable({ write: (_chunk, _encoding, done) => done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) });
  let closed = 0;
  const transport = new LineTransport(new PassThrough(), output, () => undefined, () => void closed++);
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
