// Where `ctx:show` leaves its state: a Lua table anchored in the registry, `box[1] = state`. That
// store is all `ctx:show` usually costs, so a tool may call it a million times in a loop. A state
// is taken out (converted and sent):
// - by `ctx:show` itself when `box.due` is set: the first show of a call, or one after a quiet
//   spell — so it goes out at once, and a state that cannot cross is an error at that very line;
// - from a count hook, every HOOK_INSTRUCTIONS VM instructions once SNAPSHOT_INTERVAL_MS has
//   passed, so CPU-bound code still publishes (an error found there waits in `box.error` for the
//   next `ctx:show`, or fails the call at its end);
// - before each yield, so a state shown before a long `capture` appears during it;
// - at the end of the call, so the last state always arrives.
import { LUA_REGISTRYINDEX } from 'wasmoon';
import { LuaConversionError, type LuaRawApi, type LuaStack } from './lua-stack.js';

/** VM instructions between two looks at the box while Lua runs. */
export const HOOK_INSTRUCTIONS = 100_000;

const LUA_MASKCOUNT = 8;

export type Taken = { kind: 'empty' } | { kind: 'state'; state: unknown } | { kind: 'invalid'; message: string };

export class SnapshotBox {
  constructor(
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
    private readonly boxRef: number,
  ) {}

  /** Installs `onTick` as a count hook on thread `L` (threads it creates inherit it). */
  static installHook(raw: LuaRawApi, L: number, addFunction: (fn: (L: number, ar: number) => void, signature: string) => number, onTick: (L: number) => void): void {
    const hook = addFunction((hookedL) => onTick(hookedL), 'vii');
    raw._lua_sethook(L, hook, LUA_MASKCOUNT, HOOK_INSTRUCTIONS);
  }

  /** Empties the box for a new call; its first `ctx:show` is taken at once. */
  reset(L: number): void {
    this.withBox(L, (box) => {
      this.raw._lua_pushnil(L);
      this.raw._lua_rawseti(L, box, 1n);
      this.setField(L, box, 'error', null);
      this.setField(L, box, 'due', true);
    });
  }

  /** The next `ctx:show` takes its state at once (nothing was pending when one was due). */
  markDue(L: number): void {
    this.withBox(L, (box) => this.setField(L, box, 'due', true));
  }

  /** Leaves an error for the next `ctx:show` to raise. */
  leaveError(L: number, message: string): void {
    this.withBox(L, (box) => {
      this.setField(L, box, 'error', message);
      this.setField(L, box, 'due', true);
    });
  }

  /** Takes the pending state out of the box, converted to plain data. */
  take(L: number): Taken {
    return this.withBox(L, (box): Taken => {
      this.raw._lua_rawgeti(L, box, 1n);
      if (this.stack.typeAt(L, -1) === 0) return { kind: 'empty' };
      this.raw._lua_pushnil(L);
      this.raw._lua_rawseti(L, box, 1n);
      this.setField(L, box, 'due', false);
      try {
        return { kind: 'state', state: this.stack.readValue(L, -1, 'state', { invalidUtf8: 'bytes' }) };
      } catch (error) {
        if (!(error instanceof LuaConversionError)) throw error;
        return { kind: 'invalid', message: `ctx:show: ${error.message}` };
      }
    });
  }

  private setField(L: number, box: number, name: string, value: string | boolean | null): void {
    this.stack.pushString(L, name);
    this.stack.pushValue(L, value);
    this.raw._lua_rawset(L, box);
  }

  /** Pushes the box, runs `use` with its stack index, and leaves the stack as it was. */
  private withBox<T>(L: number, use: (box: number) => T): T {
    this.raw._lua_rawgeti(L, LUA_REGISTRYINDEX, BigInt(this.boxRef));
    const box = this.raw._lua_gettop(L);
    try {
      return use(box);
    } finally {
      this.raw._lua_settop(L, box - 1);
    }
  }
}
