// JSON-RPC's error codes and the shape of an error answer, for every path of `moonpool mcp` (the
// direct one loads nothing of the SDK, so these are not taken from its module at run time).
import type { JSONRPCError } from '@modelcontextprotocol/sdk/types.js';

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

export type AnswerId = string | number | null;

export function errorAnswer(id: AnswerId, code: number, message: string, data?: unknown): JSONRPCError {
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: { code, message, ...(data === undefined ? {} : { data }) },
  };
}

/** A handler's failure as the SDK answers it: the error's own code when it has one, else -32603. */
export function failureAnswer(id: string | number, error: unknown): JSONRPCError {
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  return errorAnswer(
    id,
    Number.isSafeInteger(code) ? (code as number) : INTERNAL_ERROR,
    typeof message === 'string' ? message : 'Internal error',
    data,
  );
}
