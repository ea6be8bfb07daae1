// Decides what to do with one line from an MCP client before the SDK sees it. The SDK drops a
// message its schema rejects without a word (an id of 1.5, 1e300 or null, a missing method), and
// the client then waits forever; here every such request gets a JSON-RPC error instead.
import { CallToolRequestSchema, JSONRPCMessageSchema, ListToolsRequestSchema, type JSONRPCError } from '@modelcontextprotocol/sdk/types.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;

// The SDK answers a request to these with the wrong params as an internal error (-32603) quoting
// its schema's report; here it is -32602 naming the field.
const PARAMS_SCHEMAS = new Map<string, { safeParse: (value: unknown) => ParamsCheck }>([
  ['tools/call', CallToolRequestSchema],
  ['tools/list', ListToolsRequestSchema],
]);

type ParamsCheck = { success: true } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };

export type LineVerdict = { kind: 'forward' } | { kind: 'ignore' } | { kind: 'answer'; error: JSONRPCError };

type Id = string | number | null;

/** An id the SDK can answer with (a string or a safe integer), or null. */
function usableId(id: unknown): Id {
  if (typeof id === 'string') return id;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : null;
}

export function errorAnswer(id: Id, code: number, message: string): JSONRPCError {
  return { jsonrpc: '2.0', id: id as string | number, error: { code, message } };
}

function describeId(id: unknown): string {
  if (id === null) return 'null';
  if (typeof id === 'number') return Number.isInteger(id) ? `${id} (not a safe integer)` : `${id} (not an integer)`;
  return `of type ${Array.isArray(id) ? 'array' : typeof id}`;
}

export function checkLine(line: string): LineVerdict {
  if (line.trim() === '') return { kind: 'ignore' };
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { kind: 'answer', error: errorAnswer(null, PARSE_ERROR, 'Parse error: the line is not JSON') };
  }
  if (JSONRPCMessageSchema.safeParse(message).success) return paramsVerdict(message as { id?: string | number; method?: string });
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    return { kind: 'answer', error: errorAnswer(null, INVALID_REQUEST, 'Invalid Request: a message is one JSON object (batches are not supported)') };
  }
  const fields = message as Record<string, unknown>;
  // A reply to the server, or a notification (no id): JSON-RPC answers neither.
  if ('result' in fields || 'error' in fields) return { kind: 'ignore' };
  if (!('id' in fields) && typeof fields['method'] === 'string') return { kind: 'ignore' };
  const id = usableId(fields['id']);
  const problem =
    fields['jsonrpc'] !== '2.0'
      ? '"jsonrpc" must be "2.0"'
      : !('id' in fields)
        ? 'no "id" and no "method"'
        : id === null
          ? `the id is ${describeId(fields['id'])}; ids are strings or integers`
          : typeof fields['method'] !== 'string'
            ? '"method" must be a string'
            : '"params" must be an object';
  return { kind: 'answer', error: errorAnswer(id, INVALID_REQUEST, `Invalid Request: ${problem}`) };
}

function paramsVerdict(message: { id?: string | number; method?: string }): LineVerdict {
  const schema = message.id === undefined || message.method === undefined ? undefined : PARAMS_SCHEMAS.get(message.method);
  const parsed = schema?.safeParse(message);
  if (parsed === undefined || parsed.success) return { kind: 'forward' };
  const issue = parsed.error.issues[0];
  const where = issue ? issue.path.map(String).join('.') : 'params';
  return { kind: 'answer', error: errorAnswer(message.id!, INVALID_PARAMS, `Invalid params: ${where}: ${issue?.message ?? 'does not match'}`) };
}
