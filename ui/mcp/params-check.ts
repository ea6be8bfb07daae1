// Says what is wrong with a request's params in one short line naming the field
// (`params.protocolVersion: is required`), where the SDK would answer -32603 with its schema's
// whole report, or (for a bad `_meta`) drop the request as if it were not JSON-RPC at all.
import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  JSONRPCRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { hasProtoArgument } from './plain-requests.js';

interface Issue {
  path: PropertyKey[];
  code?: string;
  expected?: string;
  keys?: string[];
  message: string;
}

type ParamsCheck = { success: true } | { success: false; error: { issues: Issue[] } };

/** The methods moonpool answers whose params the SDK checks with a schema. */
const PARAMS_SCHEMAS = new Map<string, { safeParse: (value: unknown) => ParamsCheck }>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
  ['resources/list', ListResourcesRequestSchema],
  ['resources/read', ReadResourceRequestSchema],
]);

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'string') return 'a string';
  return `a ${typeof value}`;
}

const EXPECTED: Record<string, string> = {
  object: 'an object',
  record: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
};

function valueAt(message: unknown, path: PropertyKey[]): unknown {
  let value = message;
  for (const key of path)
    value = typeof value === 'object' && value !== null ? (value as Record<PropertyKey, unknown>)[key] : undefined;
  return value;
}

function describeIssue(issue: Issue, message: unknown): string {
  const path =
    issue.path.reduce<string>(
      (text, key) =>
        /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(String(key))
          ? `${text}${text ? '.' : ''}${String(key)}`
          : `${text}[${JSON.stringify(String(key))}]`,
      '',
    ) || 'params';
  const value = valueAt(message, issue.path);
  if (value === undefined) return `${path}: is required`;
  if (issue.path.at(-1) === 'progressToken')
    return `${path}: must be a string or an integer (got ${describeValue(value)})`;
  const expected = issue.code === 'invalid_type' && issue.expected !== undefined ? EXPECTED[issue.expected] : undefined;
  if (expected !== undefined) return `${path}: must be ${expected} (got ${describeValue(value)})`;
  return `${path}: ${issue.message}`;
}

/** What is wrong with a well-formed request's params for its method, or undefined. */
export function paramsProblem(message: {
  method: string;
  params?: Record<string, unknown> | undefined;
}): string | undefined {
  if (message.method === 'tools/call' && hasProtoArgument(message.params?.['arguments']))
    return 'params.arguments: "__proto__" cannot be an argument name';
  const parsed = PARAMS_SCHEMAS.get(message.method)?.safeParse(message);
  if (parsed === undefined || parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return issue ? describeIssue(issue, message) : 'params: do not match';
}

/**
 * What makes a request with a usable id, a method and object params fail JSON-RPC's schema: a
 * problem in its params (a bad `_meta`), or in the message itself (a member JSON-RPC has not).
 */
export function requestProblem(message: unknown): { inParams: boolean; text: string } | undefined {
  const parsed = (JSONRPCRequestSchema as { safeParse: (value: unknown) => ParamsCheck }).safeParse(message);
  const issue = parsed.success ? undefined : parsed.error.issues[0];
  if (issue === undefined) return undefined;
  if (issue.path.length > 0) return { inParams: true, text: describeIssue(issue, message) };
  const members = (issue.keys ?? []).map((key) => JSON.stringify(key)).join(', ');
  return {
    inParams: false,
    text:
      issue.code === 'unrecognized_keys'
        ? `unknown member ${members}; a request has "jsonrpc", "id", "method" and "params"`
        : issue.message,
  };
}
