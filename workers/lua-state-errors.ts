// Why an entry point did not return normally: a Lua error at the entry's own level (a stray
// yield, say), or a Lua state that can no longer be trusted (a trap), which the worker discards.

/** A Lua error raised at the entry's own level, with Lua's status code (LUA_ERRMEM = 4…). */
export class LuaEntryError extends Error {
  override readonly name = 'LuaEntryError';

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

  constructor(cause: unknown) {
    const why = isWasmTrap(cause)
      ? `a WebAssembly trap: ${cause.message}`
      : `an internal error: ${cause instanceof Error ? cause.message : String(cause)}`;
    super(`its Lua state broke (${why}) and was discarded`, { cause });
  }
}

export const LUA_ERRRUN = 2;
export const LUA_ERRMEM = 4;

/** A WebAssembly trap (`memory access out of bounds`, `unreachable`…), as thrown into JavaScript. */
export function isWasmTrap(error: unknown): error is Error {
  return error instanceof Error && error.name === 'RuntimeError';
}
