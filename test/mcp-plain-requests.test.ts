// The direct path of `moonpool mcp` takes only messages the SDK's schemas accept, with the same
// meaning: each message plain-requests.ts recognises passes json-rpc-check.ts (the SDK's schemas) as
// it is, and each near miss is left to the SDK's path. The protocol versions agree with the SDK's.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SUPPORTED_PROTOCOL_VERSIONS as SDK_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { checkMessage } from '../ui/mcp/json-rpc-check.js';
import { asPlainMessage } from '../ui/mcp/plain-requests.js';
import { negotiatedVersion, SUPPORTED_PROTOCOL_VERSIONS } from '../ui/mcp/protocol-version.js';

const request = (method: string, params?: unknown, id: unknown = 1): unknown => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params === undefined ? {} : { params }),
});
const notification = (method: string, params?: unknown): unknown => ({
  jsonrpc: '2.0',
  method,
  ...(params === undefined ? {} : { params }),
});
const initialize = (params: Record<string, unknown>): unknown =>
  request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'c', version: '1' },
    ...params,
  });

const PLAIN = [
  initialize({}),
  initialize({
    capabilities: {
      roots: { listChanged: true },
      sampling: {},
      elicitation: {},
      experimental: { x: {} },
      extensions: { 'a/b': {} },
    },
  }),
  initialize({ clientInfo: { name: 'c', version: '1', title: 'C' }, _meta: { progressToken: 't' } }),
  initialize({ protocolVersion: '1999-01-01' }),
  request('ping'),
  request('ping', {}, 'id-1'),
  request('tools/list', { cursor: 'x' }),
  request('resources/list'),
  request('resources/read', { uri: 'file:///x' }),
  request('tools/call', { name: 'echo' }),
  request(
    'tools/call',
    { name: 'echo', arguments: { text: 'x', nested: [1, { a: null }] }, _meta: { progressToken: 7 } },
    Number.MAX_SAFE_INTEGER,
  ),
  notification('notifications/initialized'),
  notification('notifications/cancelled', { requestId: 3, reason: 'r' }),
];

const NEAR_MISSES = [
  initialize({ capabilities: { roots: { listChanged: 'yes' } } }),
  initialize({ capabilities: { sampling: { context: 5 } } }),
  initialize({ capabilities: { elicitation: { form: {} } } }),
  initialize({ capabilities: { tasks: {} } }),
  initialize({ capabilities: [] }),
  initialize({ clientInfo: { name: 'c', version: '1', websiteUrl: 'https://example.com' } }),
  initialize({ clientInfo: { name: 'c' } }),
  initialize({ protocolVersion: 5 }),
  request('ping', null),
  request('ping', { _meta: { progressToken: 't', other: 1 } }),
  request('ping', { _meta: { progressToken: 1.5 } }),
  request('tools/list', { cursor: 5 }),
  request('tools/list', { extra: true }),
  request('resources/read', {}),
  request('tools/call', { name: 5 }),
  request('tools/call', { name: 'echo', arguments: null }),
  request('tools/call', { name: 'echo', arguments: [1] }),
  request('tools/call', { name: 'echo', task: {} }),
  request('tools/call', { name: 'echo', _meta: { progressToken: null } }),
  request('tools/call', { name: 'echo' }, 1.5),
  request('tools/call', { name: 'echo' }, null),
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","__proto__":{}}}'),
  { ...(request('tools/call', { name: 'echo' }) as object), extra: 1 },
  { id: 1, method: 'tools/call', params: { name: 'echo' } },
  request('tools/nope'),
  notification('notifications/cancelled', {}),
  notification('notifications/cancelled', { requestId: 3, reason: 5 }),
  notification('notifications/other'),
  [request('ping')],
];

test('every message the direct path takes, the SDK takes as it is', () => {
  for (const message of PLAIN) {
    assert.ok(asPlainMessage(message), `not recognised: ${JSON.stringify(message)}`);
    const verdict = checkMessage(message);
    assert.equal(verdict.kind, 'forward', `the SDK's schemas refuse ${JSON.stringify(message)}`);
  }
});

test('near misses are left to the SDK path', () => {
  for (const message of NEAR_MISSES)
    assert.equal(asPlainMessage(message), undefined, `taken: ${JSON.stringify(message)}`);
});

test("the protocol versions are the SDK's, and an unknown one is answered with the newest", () => {
  assert.deepEqual(SUPPORTED_PROTOCOL_VERSIONS, SDK_VERSIONS);
  assert.equal(negotiatedVersion('2024-11-05'), '2024-11-05');
  assert.equal(negotiatedVersion('1999-01-01'), SDK_VERSIONS[0]);
});
