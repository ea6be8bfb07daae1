// Recognises the common `tools/call` request without the SDK's schemas: a JSON-RPC request whose
// members, params and `_meta` hold only what a plain call needs. Every message this accepts the
// SDK's schemas accept too, with the same meaning; anything else (a `task`, extra `_meta`, a
// malformed field) is left to the SDK's path, which answers or reports it as before.

export type RequestId = string | number;

export interface ToolCallRequest {
  id: RequestId;
  name: string;
  args: Record<string, unknown>;
  progressToken: RequestId | undefined;
}

const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_MEMBERS = new Set(['name', 'arguments', '_meta']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyMembers(value: Record<string, unknown>, allowed: Set<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/** A string or a safe integer: what the SDK takes as a request id or a progress token. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

export function asToolCallRequest(message: unknown): ToolCallRequest | undefined {
  if (!isPlainObject(message) || message['method'] !== 'tools/call' || message['jsonrpc'] !== '2.0') return undefined;
  const { id, params } = message;
  if (!isRequestId(id) || !isPlainObject(params) || !onlyMembers(message, REQUEST_MEMBERS) || !onlyMembers(params, PARAMS_MEMBERS)) return undefined;
  const { name, arguments: args = {}, _meta: meta } = params;
  if (typeof name !== 'string' || !isPlainObject(args)) return undefined;
  if (meta === undefined) return { id, name, args, progressToken: undefined };
  if (!isPlainObject(meta) || Object.keys(meta).some((key) => key !== 'progressToken')) return undefined;
  const progressToken = meta['progressToken'];
  if (progressToken !== undefined && !isRequestId(progressToken)) return undefined;
  return { id, name, args, progressToken };
}

/** The id of the request a `notifications/cancelled` names, if the message is one. */
export function cancelledRequestId(message: unknown): RequestId | undefined {
  if (!isPlainObject(message) || message['method'] !== 'notifications/cancelled' || 'id' in message) return undefined;
  const params = message['params'];
  return isPlainObject(params) && isRequestId(params['requestId']) ? params['requestId'] : undefined;
}
