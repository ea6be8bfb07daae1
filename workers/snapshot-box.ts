// Where `ctx:show` leaves its state (`box[1]`, a registry-anchored table), and when it is sent.
// ctx:show only stores and counts; every so many shows it asks the worker to look (`look`), paced
// to about one look per CHECK_EVERY_MS. A due state is sent at once, so a bad one is an error at
// its ctx:show line. A pending state is watched by the count hook, which sends it once due if no
// newer show comes; before each wait and at the call's end it is sent regardless. States are
// encoded straight to msgpack (snapshot-encoder.ts).
import { LUA_REGISTRYINDEX } from './wasmoon.js';
import { LuaConversionError, type LuaRawApi, type LuaStack } from './lua-stack.js';
import { SnapshotEncoder } from './snapshot-encoder.js';
import type { CountHook } from './count-hook.js';
import type { CallChannel } from './call-channel.js';

// Well under the 33 ms between snapshots, and rare enough that looking costs nothing measurable.
const CHECK_EVERY_MS = 10;
const MAX_SHOWS_BETWEEN_CHECKS = 65_536;

export class SnapshotBox {
  private readonly encoder: SnapshotEncoder;
  private channel: CallChannel | null = null;
  private entryThread = 0;
  private lastCheckAt = -Infinity;
  private lastShows = 0;
  /** The identity of the pending state the hook watches. */
  private watched: number | undefined;
  /** The first state that could not be converted. */
  private problem: string | undefined;
  /** A state sent where Lua could not be interrupted could not cross: the next look raises this. */
  private left: string | undefined;

  constructor(
    private readonly raw: LuaRawApi,
    private readonly stack: LuaStack,
    private readonly boxRef: number,
    private readonly hook: CountHook,
  ) {
    this.encoder = new SnapshotEncoder(raw);
  }

  /** Starts a call whose snapshots go to `channel`; `run` starts on `entryThread` (the prelude empties the box). */
  begin(entryThread: number, channel: CallChannel): void {
    this.channel = channel;
    this.entryThread = entryThread;
    this.problem = undefined;
    this.left = undefined;
    this.lastCheckAt = -Infinity;
    this.lastShows = 0;
  }

  /** `ctx:show` asks after `shows` shows: the show count to ask at next, and a problem to raise here, if any. */
  look(L: number, shows: number): [number, string?] {
    const next = shows + this.showsUntilNextLook(shows, performance.now());
    const left = this.left;
    if (left !== undefined) {
      // Raised at this ctx:show, where the tool may catch it: no longer the call's own failure.
      this.left = this.problem = undefined;
      return [next, left];
    }
    if (!this.channel) return [next];
    if (this.channel.due()) {
      const problem = this.send(L);
      return problem === undefined ? [next] : [next, problem];
    }
    if (L === this.entryThread) {
      this.watched = this.pendingIdentity(L);
      this.hook.hold(L, 'snapshot');
    }
    return [next];
  }

  /** The hook's tick on a watched thread. */
  tick(L: number): void {
    if (this.watched === undefined || L !== this.entryThread || !this.channel) return;
    const identity = this.pendingIdentity(L);
    if (identity === 0 || identity !== this.watched) return this.unwatch();
    if (!this.channel.due()) return;
    this.unwatch();
    this.sendLater(L);
  }

  beforeWait(L: number): void {
    if (this.channel) this.sendLater(L);
  }

  /** Ends the call: sends the state left in the box (`send`: the Lua state is sound); returns a problem no ctx:show raised. */
  finish(send: boolean): string | undefined {
    if (this.channel && send) this.sendLater(this.entryThread);
    this.unwatch();
    this.channel = null;
    return this.problem;
  }

  /** How many more shows until the next look. */
  private showsUntilNextLook(shows: number, now: number): number {
    const elapsed = now - this.lastCheckAt;
    const made = Math.max(1, shows - this.lastShows);
    this.lastCheckAt = now;
    this.lastShows = shows;
    // Shows came faster than the interval: look half as often next time.
    if (elapsed < CHECK_EVERY_MS) return Math.min(made * 2, MAX_SHOWS_BETWEEN_CHECKS);
    return Math.max(1, Math.min(MAX_SHOWS_BETWEEN_CHECKS, Math.floor((made / elapsed) * CHECK_EVERY_MS)));
  }

  private unwatch(): void {
    if (this.watched === undefined) return;
    this.watched = undefined;
    this.hook.release('snapshot');
  }

  /** Takes the pending state out of the box and sends it; returns why it could not cross, if it could not. */
  private send(L: number): string | undefined {
    return this.withBox(L, (box) => {
      this.raw._lua_rawgeti(L, box, 1n);
      if (this.stack.typeAt(L, -1) === 0) return undefined;
      this.raw._lua_pushnil(L);
      this.raw._lua_rawseti(L, box, 1n);
      try {
        this.channel?.send(this.encoder.encode(L, -1));
        return undefined;
      } catch (error) {
        if (!(error instanceof LuaConversionError)) throw error;
        return `ctx:show: ${error.message}`;
      }
    });
  }

  /** Sends where Lua cannot be interrupted: a bad state is left for the next `ctx:show` to raise. */
  private sendLater(L: number): void {
    const problem = this.send(L);
    if (problem === undefined) return;
    this.left = problem;
    // Until a ctx:show raises it, it fails the call (a call that shows nothing more ends with it).
    this.problem ??= problem;
  }

  /** Identity of the pending state (0: none): tells whether new shows came. */
  private pendingIdentity(L: number): number {
    return this.withBox(L, (box) => {
      this.raw._lua_rawgeti(L, box, 1n);
      return this.raw._lua_topointer(L, -1);
    });
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
