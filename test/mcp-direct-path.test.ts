// The direct path of `moonpool mcp` on its own, with a host that fails where the real one never
// does: a fault of moonpool's own is answered -32603 with its message, as the SDK answers a handler
// that throws.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../core/index.js';
import { DirectPath } from '../ui/mcp/direct-path.js';
import { asPlainMessage } from '../ui/mcp/plain-requests.js';
import { eventually } from './helpers.js';

test('a call whose serving throws is answered -32603 with the message, not left unanswered', async () => {
  const sent: JSONRPCMessage[] = [];
  const host = { call: () => Promise.reject(new Error('the host broke')) } as unknown as ToolHost;
  const direct = new DirectPath(
    {
      host,
      log: () => undefined,
      serverInfo: { name: 'moonpool', version: '0' },
      instructions: () => undefined,
      readResource: () => Promise.reject(new Error('no resources here')),
      ask: () => ({ refused: 'unavailable' }),
    },
    (message) => {
      sent.push(message);
      return Promise.resolve();
    },
  );
  const call = asPlainMessage({
    jsonrpc: '2.0',
    id: 'broken',
    method: 'tools/call',
    params: { name: 'any', arguments: {} },
  });
  assert.ok(call);
  direct.take(call);
  assert.ok(await eventually(() => sent.length === 1));
  assert.deepEqual(sent, [{ jsonrpc: '2.0', id: 'broken', error: { code: -32603, message: 'the host broke' } }]);
});
