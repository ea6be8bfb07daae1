// Why an entry point of the prelude did not return normally: a Lua error at the entry's own level
// (outside the prelude's xpcall, e.g. a stray yield), or a Lua state that can no longer be trusted
// (a WebAssembly trap, an internal inconsistency), which the worker discards.

/** A Lua error raised at the entry's own level, with Lua's status code (LUA_ERRMEM = 4…). */
export class LuaEntryError extends Error {
  override readonly name = 'LuaEntryError';
  readonly code = 'LUA_ENTRY_FAILED';

  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  get outOfMemory(): boolean {
    return this.status === LUA_ERRMEM;
  }
}

/** The Lua state broke: the worker must not run anything on it again. */
export class LuaStateBroken extends Error {
  override readonly name = 'LuaStateBroken';
  readonly code = 'LUA_STATE_BROKEN';

  constructor(cause: unknown) {
    super(`its Lua state broke (${describeBreak(cause)}) and was discarded`, { cause });
  }
}

export const LUA_ERRRUN = 2;
export const LUA_ERRMEM = 4;

/** A WebAssembly trap (`memory access out of bounds`, `unreachable`…), as thrown into JavaScript. */
export function isWasmTrap(error: unknown): error is Error {
  return error instanceof Error && error.name === 'RuntimeError';
}

function describeBreak(cause: unknown): string {
  if (isWasmTrap(cause)) return `a WebAssembly trap: ${cause.message}`;
  return `an internal error: ${cause instanceof Error ? cause.message : String(cause)}`;
}
