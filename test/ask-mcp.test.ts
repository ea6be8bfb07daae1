// ctx:ask over MCP, driven by the SDK's own client: a client that declared `elicitation` gets an
// `elicitation/create` whose one field is the choices (or a boolean) with the default, and its
// accept, decline and cancel reach the tool; a client without the capability is never asked;
// cancelling a call while its question waits ends it and withdraws the question.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CallToolResultSchema,
  CancelledNotificationSchema,
  ElicitRequestSchema,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { CLI, eventually, FIXTURES, tempDir } from './helpers.js';

const CONFIG = join(FIXTURES, 'ask', 'init.lua');

/** A client of `moonpool mcp` whose state is under `dir`. */
async function connect(dir: string, capabilities: Record<string, unknown>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config', CONFIG, '--state-dir', join(dir, 'state'), '--cwd', dir],
    env: { ...process.env, MOONPOOL_CONFIG: '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'moonpool-test', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return client;
}

const textOf = (result: unknown): string => (result as { content: { text: string }[] }).content[0]!.text;

describe('moonpool mcp with a client that can be asked', () => {
  let client: Client;
  const asked: ElicitRequest['params'][] = [];
  let reply: (request: ElicitRequest) => ElicitResult | Promise<ElicitResult> = () => ({ action: 'cancel' });
  const withdrawn: unknown[] = [];
  // The state dir is made here: one made in `before` was removed as that hook ended (a hook added
  // in a hook runs when it ends), and the server wrote its session log again. The client is closed
  // before the dir goes (hooks run in the order they were added), so it writes nothing after.
  after(() => client.close());
  const dir = tempDir();

  before(async () => {
    client = await connect(dir, { elicitation: {} });
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return reply(request);
    });
    client.setNotificationHandler(CancelledNotificationSchema, (notification) => {
      withdrawn.push(notification.params.requestId);
    });
  });

  test('a choice is an enum field with the default; accept answers the tool', async () => {
    reply = () => ({ action: 'accept', content: { answer: 'blue' } });
    const result = await client.callTool({ name: 'pick', arguments: {} });
    assert.equal(textOf(result), 'answer: blue');
    assert.deepEqual(asked.at(-1), {
      message: 'pick asks: Which colour?',
      requestedSchema: {
        type: 'object',
        properties: { answer: { type: 'string', title: 'Answer', enum: ['red', 'green', 'blue'], default: 'green' } },
        required: ['answer'],
      },
    });
  });

  test('a confirm is a boolean field; decline and cancel decline', async () => {
    reply = () => ({ action: 'accept', content: { answer: true } });
    assert.equal(textOf(await client.callTool({ name: 'delete', arguments: { default: false } })), 'answer: true');
    assert.deepEqual((asked.at(-1) as { requestedSchema?: unknown } | undefined)?.requestedSchema, {
      type: 'object',
      properties: { answer: { type: 'boolean', title: 'Yes?', default: false } },
      required: ['answer'],
    });
    reply = () => ({ action: 'decline' });
    assert.equal(textOf(await client.callTool({ name: 'delete', arguments: {} })), 'no answer: declined');
    reply = () => ({ action: 'cancel' });
    assert.equal(textOf(await client.callTool({ name: 'delete', arguments: {} })), 'no answer: declined');
  });

  test("an answer that is not one of the choices is no answer; the call's time limit waits for the user", async () => {
    reply = () => ({ action: 'accept', content: { answer: 'purple' } });
    assert.equal(textOf(await client.callTool({ name: 'pick', arguments: {} })), 'no answer: unavailable');
    // `patient` has one second to run; its question waits longer.
    reply = async () => (
      await new Promise((resolve) => setTimeout(resolve, 1500)),
      { action: 'accept', content: { answer: true } }
    );
    assert.equal(textOf(await client.callTool({ name: 'patient', arguments: {} })), 'answer: true');
  });

  test('cancelling the call while its question waits ends it and withdraws the question', async () => {
    const controller = new AbortController();
    const count = asked.length;
    reply = () => new Promise(() => undefined);
    const pending = client.callTool({ name: 'pick', arguments: {} }, CallToolResultSchema, {
      signal: controller.signal,
    });
    assert.ok(await eventually(() => asked.length > count));
    controller.abort();
    await assert.rejects(pending);
    assert.ok(await eventually(() => withdrawn.length === 1));
    reply = () => ({ action: 'accept', content: { answer: 'red' } });
    assert.equal(textOf(await client.callTool({ name: 'pick', arguments: {} })), 'answer: red');
  });
});

describe('moonpool mcp and the elicitation capability', () => {
  test('a client without it is never asked: the tool hears nil, unavailable', async () => {
    const client = await connect(tempDir(), {});
    try {
      assert.equal(textOf(await client.callTool({ name: 'pick', arguments: {} })), 'no answer: unavailable');
    } finally {
      await client.close();
    }
  });

  test('a client that declares forms explicitly (served by the SDK path) is asked; one with only URLs is not', async () => {
    const forms = await connect(tempDir(), { elicitation: { form: {} } });
    const urls = await connect(tempDir(), { elicitation: { url: {} } });
    try {
      forms.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { answer: 'red' } }));
      assert.equal(textOf(await forms.callTool({ name: 'pick', arguments: {} })), 'answer: red');
      assert.equal(textOf(await urls.callTool({ name: 'pick', arguments: {} })), 'no answer: unavailable');
    } finally {
      await forms.close();
      await urls.close();
    }
  });
});
