// Decides what to do with a message from an MCP client before the SDK sees it. The SDK drops a
// message its schema rejects without a word (an id of 1.5, 1e300 or null, a missing method), and
// the client then waits forever; here every such request gets a JSON-RPC error instead.
import { JSONRPCMessageSchema, type JSONRPCError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorAnswer, INVALID_PARAMS, INVALID_REQUEST, type AnswerId } from './json-rpc.js';
import { paramsProblem, requestProblem } from './params-check.js';

/** `forward` carries the message as the SDK's schema parsed it, so the SDK need not parse it again. */
export type LineVerdict =
  { kind: 'forward'; message: JSONRPCMessage } | { kind: 'ignore' } | { kind: 'answer'; error: JSONRPCError };

/** An id the SDK can answer with (a string or a safe integer), or null. */
function usableId(id: unknown): AnswerId {
  if (typeof id === 'string') return id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

function describeId(id: unknown): string {
  if (id === null) return 'null';
  if (typeof id === 'number') return Number.isInteger(id) ? `${id} (not a safe integer)` : `${id} (not an integer)`;
  return `of type ${Array.isArray(id) ? 'array' : typeof id}`;
}

/** What to do with a message parsed from a line. */
export function checkMessage(message: unknown): LineVerdict {
  const parsed = JSONRPCMessageSchema.safeParse(message);
  if (parsed.success) return paramsVerdict(parsed.data);
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return {
      kind: 'answer',
      error: errorAnswer(
        null,
        INVALID_REQUEST,
        'Invalid Request: a message is one JSON object (batches are not supported)',
      ),
    };
  }
  const fields = message as Record<string, unknown>;
  // A reply to the server, or a notification (no id): JSON-RPC answers neither.
  if ('result' in fields || 'error' in fields) return { kind: 'ignore' };
  if (!('id' in fields) && typeof fields['method'] === 'string') return { kind: 'ignore' };
  const id = usableId(fields['id']);
  const params = fields['params'];
  const problem =
    fields['jsonrpc'] !== '2.0'
      ? '"jsonrpc" must be "2.0"'
      : !('id' in fields)
        ? 'no "id" and no "method"'
        : id === null
          ? `the id is ${describeId(fields['id'])}; ids are strings or integers`
          : typeof fields['method'] !== 'string'
            ? '"method" must be a string'
            : params !== undefined && (typeof params !== 'object' || params === null || Array.isArray(params))
              ? '"params" must be an object'
              : undefined;
  if (problem !== undefined)
    return { kind: 'answer', error: errorAnswer(id, INVALID_REQUEST, `Invalid Request: ${problem}`) };
  // A request JSON-RPC's schema still rejects: a bad `_meta` (a progressToken of {}), or an extra member.
  const rejected = requestProblem(message) ?? {
    inParams: false,
    text: 'the message does not match the JSON-RPC request schema',
  };
  return {
    kind: 'answer',
    error: rejected.inParams
      ? errorAnswer(id, INVALID_PARAMS, `Invalid params: ${rejected.text}`)
      : errorAnswer(id, INVALID_REQUEST, `Invalid Request: ${rejected.text}`),
  };
}

function paramsVerdict(message: JSONRPCMessage): LineVerdict {
  if (!('id' in message) || !('method' in message)) return { kind: 'forward', message };
  const problem = paramsProblem(message);
  return problem === undefined
    ? { kind: 'forward', message }
    : { kind: 'answer', error: errorAnswer(message.id, INVALID_PARAMS, `Invalid params: ${problem}`) };
}
