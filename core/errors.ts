// moonpool's typed errors, for what the host or CLI does wrong (a tool's failure is a result,
// never a throw). Each has a stable `code`; the message says what to do.

export type MoonpoolErrorCode =
  | 'INVALID_OPTION'
  | 'CONFIG_NOT_FOUND'
  | 'CONFIG_FAILED'
  | 'WORKER_FAILED'
  | 'STATE_DIR_UNUSABLE';

export class MoonpoolError extends Error {
  override readonly name = 'MoonpoolError';

  constructor(
    readonly code: MoonpoolErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
