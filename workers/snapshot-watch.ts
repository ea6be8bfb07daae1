// When a call's `ctx:show` states are taken out of the snapshot box and sent. `ctx:show` asks
// (`look`) every so many shows, paced by SnapshotPacer; a due snapshot is taken then and there, so
// the first state of a call goes out at once and a bad one is an error at its `ctx:show` line. A
// state left pending (not due yet) is watched by a count hook on the entry thread: if new shows keep
// coming the hook steps aside (the looks handle them), if they stop it sends the state once due.
// Before each wait and at the end of the call the pending state is sent regardless.
import type { CountHook } from './count-hook.js';
import type { SnapshotBox } from './snapshot-box.js';
import type { CallChannel } from './call-channel.js';
import { SnapshotPacer } from './snapshot-pacer.js';

export class SnapshotWatch {
  private readonly pacer = new SnapshotPacer();
  private channel: CallChannel | null = null;
  private entryThread = 0;
  /** The pending state the hook watches (its identity), when it watches one. */
  private watched: number | undefined;
  /** The first state that could not be converted. */
  problem: string | undefined;
  /** An error was left in the box for `ctx:show` to raise (so looks check for it). */
  private errorLeft = false;

  constructor(
    private readonly box: SnapshotBox,
    private readonly hook: CountHook,
  ) {}

  /**
   * Starts a call whose snapshots go to `channel`; `entryThread` is the thread `run` starts on.
   * (The prelude empties the box itself when the call starts.)
   */
  begin(entryThread: number, channel: CallChannel): void {
    this.channel = channel;
    this.entryThread = entryThread;
    this.problem = undefined;
    this.errorLeft = false;
    this.pacer.reset();
  }

  /**
   * `ctx:show` asks, after `shows` shows on thread `L`: sends the state when one is due. Returns
   * the show count at which to ask next, and a problem to raise at this `ctx:show`, if any.
   */
  look(L: number, shows: number): [number, string?] {
    const next = shows + this.pacer.next(shows, performance.now());
    if (this.errorLeft) {
      this.errorLeft = false;
      const left = this.box.takeError(L);
      // Raised at this ctx:show, where the tool may catch it: no longer the call's own failure.
      this.problem = undefined;
      if (left !== null) return [next, left];
    }
    if (!this.channel) return [next];
    if (this.channel.due()) {
      const problem = this.send(L);
      return problem === undefined ? [next] : [next, problem];
    }
    if (L === this.entryThread) this.watch(L);
    return [next];
  }

  /** The hook's tick on a watched thread. */
  tick(L: number): void {
    if (this.watched === undefined || L !== this.entryThread || !this.channel) return;
    const identity = this.box.pendingIdentity(L);
    if (identity === 0 || identity !== this.watched) return this.unwatch();
    if (!this.channel.due()) return;
    this.unwatch();
    this.sendLater(L);
  }

  /** Before the thread waits (a `capture`): the pending state goes now. */
  beforeWait(L: number): void {
    if (this.channel) this.sendLater(L);
  }

  /** Ends the call: sends the last state (if it showed any); returns a problem no ctx:show raised. */
  finish(showed: boolean): string | undefined {
    if (this.channel && showed) this.sendLater(this.entryThread);
    this.unwatch();
    this.channel = null;
    return this.problem;
  }

  private watch(L: number): void {
    this.watched = this.box.pendingIdentity(L);
    this.hook.hold(L, 'snapshot');
  }

  private unwatch(): void {
    if (this.watched === undefined) return;
    this.watched = undefined;
    this.hook.release('snapshot');
  }

  private send(L: number): string | undefined {
    const taken = this.box.take(L);
    if (taken.kind === 'state') this.channel?.send(taken.bytes);
    return taken.kind === 'invalid' ? taken.message : undefined;
  }

  /** Sends where Lua cannot be interrupted: a bad state is left for the next `ctx:show` to raise. */
  private sendLater(L: number): void {
    const problem = this.send(L);
    if (problem === undefined) return;
    this.box.leaveError(L, problem);
    this.errorLeft = true;
    // Until a ctx:show raises it, it fails the call (a call that shows nothing more ends with it).
    this.problem ??= problem;
  }
}
