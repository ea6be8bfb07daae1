// A Lua count hook, armed only while something needs watching: in Lua 5.4 any count hook makes
// the VM call into the debug machinery before every instruction (about halving the speed of tight
// code), so moonpool never leaves one on.

const LUA_MASKCOUNT = 8;

export interface HookApi {
  _lua_sethook(L: number, hook: number, mask: number, count: number): void;
}

export class CountHook {
  private readonly pointer: number;

  constructor(
    private readonly raw: HookApi,
    addFunction: (fn: (L: number, ar: number) => void, signature: string) => number,
    onTick: (L: number) => void,
  ) {
    this.pointer = addFunction((L) => onTick(L), 'vii');
  }

  /** Calls `onTick` every `instructions` VM instructions on thread `L`. */
  arm(L: number, instructions: number): void {
    this.raw._lua_sethook(L, this.pointer, LUA_MASKCOUNT, instructions);
  }

  disarm(L: number): void {
    this.raw._lua_sethook(L, 0, 0, 0);
  }
}
