// Recognises, without the SDK's schemas, the messages an MCP client sends in the plain forms real
// clients use: `initialize`, `ping`, `tools/list`, `tools/call`, `resources/list`,
// `resources/read`, and the `initialized` and `cancelled` notifications. Every message recognised
// here the SDK's schemas accept too, with the same meaning; anything else (an extra member, a
// `task`, other `_meta`, a capability of a shape not checked here, a malformed field) is left to
// the SDK's path (sdk-path.ts), which answers or reports it.

export type RequestId = string | number;

export type PlainMessage =
  | { kind: 'initialize'; id: RequestId; protocolVersion: string }
  | { kind: 'ping'; id: RequestId }
  | { kind: 'tools/list'; id: RequestId }
  | {
      kind: 'tools/call';
      id: RequestId;
      name: string;
      args: Record<string, unknown>;
      progressToken: RequestId | undefined;
    }
  | { kind: 'resources/list'; id: RequestId }
  | { kind: 'resources/read'; id: RequestId; uri: string }
  | { kind: 'initialized' }
  | { kind: 'cancelled'; requestId: RequestId };

type Fields = Record<string, unknown>;

/** The members a plain message may have, made once: each message is checked against them. */
const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_MEMBERS = new Set(['jsonrpc', 'method', 'params']);
const META_MEMBERS = new Set(['progressToken']);
/** Params' members for each method; `_meta` is allowed in all of them. */
const paramsMembers = (...names: string[]): ReadonlySet<string> => new Set(['_meta', ...names]);
const NO_PARAMS = paramsMembers();
const INITIALIZE_PARAMS = paramsMembers('protocolVersion', 'capabilities', 'clientInfo');
const LIST_PARAMS = paramsMembers('cursor');
const READ_PARAMS = paramsMembers('uri');
const CALL_PARAMS = paramsMembers('name', 'arguments');
const CANCEL_PARAMS = paramsMembers('requestId', 'reason');
const SAMPLING_MEMBERS = new Set(['context', 'tools']);
const ROOTS_MEMBERS = new Set(['listChanged']);
const CLIENT_INFO_MEMBERS = new Set(['name', 'version', 'title']);

function isPlainObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `value` holds no member but those named. */
function onlyMembers(value: Fields, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * Whether a `tools/call`'s arguments hold a key `__proto__`: the SDK's schema takes it for the
 * object's prototype and drops it, so no tool could read it; it is refused (params-check.ts).
 */
export function hasProtoArgument(args: unknown): boolean {
  return typeof args === 'object' && args !== null && Object.hasOwn(args, '__proto__');
}

/** A string or a safe integer: what the SDK takes as a request id or a progress token. */
function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}

/** `_meta` absent, or holding a progress token and nothing else. */
function plainMeta(params: Fields): boolean {
  const meta = params['_meta'];
  return (
    meta === undefined ||
    (isPlainObject(meta) &&
      onlyMembers(meta, META_MEMBERS) &&
      (meta['progressToken'] === undefined || isRequestId(meta['progressToken'])))
  );
}

/** Params of only the members named (and a plain `_meta`); absent params are `{}` (null is not). */
function paramsOf(message: Fields, allowed: ReadonlySet<string>): Fields | undefined {
  const params = 'params' in message ? message['params'] : {};
  return isPlainObject(params) && onlyMembers(params, allowed) && plainMeta(params) ? params : undefined;
}

/** An object whose members are each an object: experimental capabilities, extensions, sampling. */
function objectOfObjects(value: unknown, allowed?: ReadonlySet<string>): boolean {
  if (!isPlainObject(value) || (allowed !== undefined && !onlyMembers(value, allowed))) return false;
  return Object.values(value).every(isPlainObject);
}

const CAPABILITY_CHECKS: Record<string, (value: unknown) => boolean> = {
  experimental: (value) => objectOfObjects(value),
  extensions: (value) => objectOfObjects(value),
  sampling: (value) => objectOfObjects(value, SAMPLING_MEMBERS),
  roots: (value) =>
    isPlainObject(value) &&
    onlyMembers(value, ROOTS_MEMBERS) &&
    (value['listChanged'] === undefined || typeof value['listChanged'] === 'boolean'),
  elicitation: (value) => isPlainObject(value) && Object.keys(value).length === 0,
};

function plainCapabilities(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    Object.entries(value).every(
      ([key, capability]) => Object.hasOwn(CAPABILITY_CHECKS, key) && CAPABILITY_CHECKS[key]!(capability),
    )
  );
}

function plainClientInfo(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    onlyMembers(value, CLIENT_INFO_MEMBERS) &&
    typeof value['name'] === 'string' &&
    typeof value['version'] === 'string' &&
    (value['title'] === undefined || typeof value['title'] === 'string')
  );
}

function asRequest(message: Fields, id: RequestId): PlainMessage | undefined {
  switch (message['method']) {
    case 'initialize': {
      const params = paramsOf(message, INITIALIZE_PARAMS);
      if (
        !params ||
        typeof params['protocolVersion'] !== 'string' ||
        !plainCapabilities(params['capabilities']) ||
        !plainClientInfo(params['clientInfo'])
      )
        return undefined;
      return { kind: 'initialize', id, protocolVersion: params['protocolVersion'] };
    }
    case 'ping':
      return paramsOf(message, NO_PARAMS) ? { kind: 'ping', id } : undefined;
    case 'tools/list':
    case 'resources/list': {
      const params = paramsOf(message, LIST_PARAMS);
      return params && (params['cursor'] === undefined || typeof params['cursor'] === 'string')
        ? { kind: message['method'], id }
        : undefined;
    }
    case 'resources/read': {
      const params = paramsOf(message, READ_PARAMS);
      return params && typeof params['uri'] === 'string'
        ? { kind: 'resources/read', id, uri: params['uri'] }
        : undefined;
    }
    case 'tools/call': {
      const params = paramsOf(message, CALL_PARAMS);
      if (!params || typeof params['name'] !== 'string') return undefined;
      const args = 'arguments' in params ? params['arguments'] : {};
      if (!isPlainObject(args) || hasProtoArgument(args)) return undefined;
      const progressToken = (params['_meta'] as Fields | undefined)?.['progressToken'] as RequestId | undefined;
      return { kind: 'tools/call', id, name: params['name'], args, progressToken };
    }
    default:
      return undefined;
  }
}

function asNotification(message: Fields): PlainMessage | undefined {
  if (!onlyMembers(message, NOTIFICATION_MEMBERS)) return undefined;
  if (message['method'] === 'notifications/initialized')
    return paramsOf(message, NO_PARAMS) ? { kind: 'initialized' } : undefined;
  if (message['method'] !== 'notifications/cancelled') return undefined;
  const params = paramsOf(message, CANCEL_PARAMS);
  if (
    !params ||
    !isRequestId(params['requestId']) ||
    (params['reason'] !== undefined && typeof params['reason'] !== 'string')
  )
    return undefined;
  return { kind: 'cancelled', requestId: params['requestId'] };
}

export function asPlainMessage(message: unknown): PlainMessage | undefined {
  if (!isPlainObject(message) || message['jsonrpc'] !== '2.0') return undefined;
  if (!('id' in message)) return asNotification(message);
  const id = message['id'];
  return isRequestId(id) && onlyMembers(message, REQUEST_MEMBERS) ? asRequest(message, id) : undefined;
}
