// Where `ctx:show` leaves its state: a Lua table anchored in the registry, `box[1] = state`. That
// store (and a counter) is all `ctx:show` usually costs, so a tool may call it a million times in a
// loop. Every so many shows (see SnapshotPacer) the worker looks: if a snapshot is due it takes the
// state out — converted and sent — else the state stays pending. A pending state is also taken
// before each yield (so a state shown before a long `capture` appears during it) and at the end
// of the call. A state that cannot cross (a function, a cycle, past the size limit) is found when
// taken: it is encoded straight to msgpack (snapshot-encoder.ts), never built as JavaScript values.
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LuaConversionError, type LuaRawApi, type LuaStack } from './lua-stack.js';
import { SnapshotEncoder } from './snapshot-encoder.js';

export type Taken = { kind: 'empty' } | { kind: 'state'; bytes: Uint8Array } | { kind: 'invalid'; message: string };

export class SnapshotBox {
  private readonly encoder: SnapshotEncoder;

  constructor(
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
    private readonly boxRef: number,
  ) {
    this.encoder = new SnapshotEncoder(raw);
  }

  /** Identity of the pending state (0 when the box is empty): tells whether new shows came. */
  pendingIdentity(L: number): number {
    return this.withBox(L, (box) => {
      this.raw._lua_rawgeti(L, box, 1n);
      return this.raw._lua_topointer(L, -1);
    });
  }

  /** Leaves an error for the next look from `ctx:show` to raise. */
  leaveError(L: number, message: string): void {
    this.withBox(L, (box) => this.setError(L, box, message));
  }

  /** Takes out an error left earlier, if any. */
  takeError(L: number): string | null {
    return this.withBox(L, (box) => {
      this.stack.pushString(L, 'error');
      this.raw._lua_rawget(L, box);
      const message = this.stack.stringAt(L, -1);
      if (message !== null) this.setError(L, box, null);
      return message;
    });
  }

  /** Takes the pending state out of the box, encoded. */
  take(L: number): Taken {
    return this.withBox(L, (box): Taken => {
      this.raw._lua_rawgeti(L, box, 1n);
      if (this.stack.typeAt(L, -1) === 0) return { kind: 'empty' };
      this.raw._lua_pushnil(L);
      this.raw._lua_rawseti(L, box, 1n);
      try {
        return { kind: 'state', bytes: this.encoder.encode(L, -1, 'state') };
      } catch (error) {
        if (!(error instanceof LuaConversionError)) throw error;
        return { kind: 'invalid', message: `ctx:show: ${error.message}` };
      }
    });
  }

  private setError(L: number, box: number, message: string | null): void {
    this.stack.pushString(L, 'error');
    this.stack.pushValue(L, message);
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
