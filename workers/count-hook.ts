// A Lua count hook, armed only while something needs it (a render's budget, a pending snapshot,
// pending log lines): any count hook about halves the speed of tight code. Lua has one hook per
// thread, so moonpool owns it: `debug.sethook` records a tool's hook here (debug-hook-natives.ts)
// and this hook calls it for every event it asked for, as ldblib's own hook would.
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LUA_TFUNCTION, type LuaRawApi, type LuaStack } from './lua-stack.js';

export const LUA_MASKCOUNT = 8;
const LUA_HOOKCOUNT = 3;
/** Offsets of `source` and `currentline` in a 32-bit `lua_Debug` (event, name, namewhat, what, source, srclen). */
export const SOURCE_OFFSET = 16;
const CURRENTLINE_OFFSET = 24;
/** The names ldblib's hook passes to a Lua hook function, by event code. */
const EVENT_NAMES = ['call', 'return', 'line', 'count', 'tail call'];
/** VM instructions between two ticks. */
export const HOOK_INSTRUCTIONS = 10_000;

export type HookNeed = 'budget' | 'snapshot' | 'events';

export class CountHook {
  private readonly pointer: number;
  private readonly needs = new Set<HookNeed>();
  private armedOn = 0;
  /** Tools' hooks by thread (`debug.sethook`'s mask and count; the function is in the registry's `_HOOKKEY`). */
  readonly toolHooks = new Map<number, { mask: number; count: number }>();
  /** With a tool count hook of `count` instructions: ticks every so many of its events. */
  private countsPerTick = 1;
  private counts = 0;

  constructor(
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
    private readonly onTick: (L: number) => void,
    /** `_HOOKKEY` as a C string in the wasm heap: where ldblib keeps each thread's hook function. */
    readonly hookKey: number,
  ) {
    this.pointer = raw.addFunction((L, ar) => this.onEvent(L, ar), 'vii');
  }

  /** Calls `onTick` every HOOK_INSTRUCTIONS VM instructions on thread `L` until `release(need)`. */
  hold(L: number, need: HookNeed): void {
    this.needs.add(need);
    if (this.armedOn === L) return;
    const previous = this.armedOn;
    this.armedOn = L;
    if (previous !== 0) this.apply(previous);
    this.apply(L);
  }

  release(need: HookNeed): void {
    if (!this.needs.delete(need) || this.needs.size > 0 || this.armedOn === 0) return;
    const L = this.armedOn;
    this.armedOn = 0;
    this.apply(L);
  }

  /** Records the hook a tool set on thread `L` (mask 0: none), as `debug.sethook` does. */
  setToolHook(L: number, mask: number, count: number): void {
    if (mask === 0) this.toolHooks.delete(L);
    else this.toolHooks.set(L, { mask, count });
    this.apply(L);
  }

  /** Sets thread L's hook to what moonpool and the tool need of it now. */
  private apply(L: number): void {
    const tool = this.toolHooks.get(L);
    if (L !== this.armedOn) return this.raw._lua_sethook(L, tool ? this.pointer : 0, tool?.mask ?? 0, tool?.count ?? 0);
    const toolCount = tool && tool.mask & LUA_MASKCOUNT ? tool.count : 0;
    this.countsPerTick = toolCount > 0 ? Math.max(1, Math.round(HOOK_INSTRUCTIONS / toolCount)) : 1;
    this.counts = 0;
    this.raw._lua_sethook(
      L,
      this.pointer,
      (tool?.mask ?? 0) | LUA_MASKCOUNT,
      toolCount > 0 ? toolCount : HOOK_INSTRUCTIONS,
    );
  }

  private onEvent(L: number, ar: number): void {
    const event = this.raw.HEAP32[ar >> 2]!;
    if (event === LUA_HOOKCOUNT && L === this.armedOn && ++this.counts >= this.countsPerTick) {
      this.counts = 0;
      this.onTick(L);
    }
    const tool = this.toolHooks.get(L);
    if (tool && (event !== LUA_HOOKCOUNT || tool.mask & LUA_MASKCOUNT))
      this.callToolHook(L, event, this.raw.HEAP32[(ar + CURRENTLINE_OFFSET) >> 2]!);
  }

  /** What ldblib's hook does: calls the thread's hook function with the event's name and line. */
  private callToolHook(L: number, event: number, line: number): void {
    this.raw._lua_getfield(L, LUA_REGISTRYINDEX, this.hookKey);
    this.raw._lua_pushthread(L);
    if (this.raw._lua_rawget(L, -2) !== LUA_TFUNCTION) {
      this.raw._lua_settop(L, -3);
      return;
    }
    this.stack.pushString(L, EVENT_NAMES[event] ?? 'count');
    if (line >= 0) this.raw._lua_pushinteger(L, BigInt(line));
    else this.raw._lua_pushnil(L);
    this.raw._lua_callk(L, 2, 0, 0, 0);
    this.raw._lua_settop(L, -2);
  }
}
