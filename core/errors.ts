// moonpool's typed errors, for what the caller of the host or CLI got wrong: a bad option, a config
// that does not exist, a state directory that cannot be written. Each has a stable `code`; the
// message says what to do. Whatever goes wrong later — a config that fails to load, a worker that
// crashes, a tool that fails — is data (diagnostics, a call's status), never a throw.

export type MoonpoolErrorCode = 'INVALID_OPTION' | 'CONFIG_NOT_FOUND' | 'STATE_DIR_UNUSABLE';

export class MoonpoolError extends Error {
  override readonly name = 'MoonpoolError';

  constructor(
    readonly code: MoonpoolErrorCode,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}
