// A Lua count hook, armed only while something needs watching: in Lua 5.4 any count hook makes
// the VM call into the debug machinery before every instruction (about halving the speed of tight
// code), so moonpool never leaves one on. Several needs can hold it at once (a render's budget, a
// pending snapshot, pending log lines); it is disarmed when the last one lets go.

const LUA_MASKCOUNT = 8;
/** VM instructions between two ticks. */
export const HOOK_INSTRUCTIONS = 10_000;

export type HookNeed = 'render' | 'snapshot' | 'events';

export interface HookApi {
  _lua_sethook(L: number, hook: number, mask: number, count: number): void;
}

export class CountHook {
  private readonly pointer: number;
  private readonly needs = new Set<HookNeed>();
  private armedOn = 0;

  constructor(
    private readonly raw: HookApi,
    addFunction: (fn: (L: number, ar: number) => void, signature: string) => number,
    onTick: (L: number) => void,
  ) {
    this.pointer = addFunction((L) => onTick(L), 'vii');
  }

  /** Calls `onTick` every HOOK_INSTRUCTIONS VM instructions on thread `L` until `release(need)`. */
  hold(L: number, need: HookNeed): void {
    this.needs.add(need);
    if (this.armedOn === L) return;
    if (this.armedOn !== 0) this.raw._lua_sethook(this.armedOn, 0, 0, 0);
    this.raw._lua_sethook(L, this.pointer, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
    this.armedOn = L;
  }

  release(need: HookNeed): void {
    if (!this.needs.delete(need) || this.needs.size > 0 || this.armedOn === 0) return;
    this.raw._lua_sethook(this.armedOn, 0, 0, 0);
    this.armedOn = 0;
  }
}
