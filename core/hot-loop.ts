// The host thread's event loop kept turning, without sleeping, for a moment after a quick task goes
// to an idle worker (core/worker-pool.ts decides when): the worker's answer then finds the thread
// awake instead of waking it, which on a virtual CPU costs tens of µs, as much as the rest of a
// quick call's round trip. Each turn is one setImmediate, so the loop still reads its I/O (polling
// it with a zero timeout) and runs its timers between turns. See docs/decisions.md, "The host's
// thread stays awake a moment for a quick answer".

/** How long the loop keeps turning for one awaited answer (ms). */
export const ANSWER_WAIT_MS = 0.3;

/** One answer awaited: until when, and whether it is still awaited. */
interface Wait {
  until: number;
  awaited: () => boolean;
}

export class HotLoop {
  private readonly waits = new Set<Wait>();
  private turning = false;
  /** Turns taken in all, for tests and stats. */
  turns = 0;

  constructor(
    private readonly now: () => number = () => performance.now(),
    /**
     * Runs `turn` at the loop's next turn. A referenced immediate: only one keeps Node's loop from
     * blocking in its poll for I/O, which is the point (and lasts at most ANSWER_WAIT_MS).
     */
    private readonly next: (turn: () => void) => void = (turn) => void setImmediate(turn),
  ) {}

  /** Keeps the loop turning until `awaited()` turns false or ANSWER_WAIT_MS have passed. */
  keep(awaited: () => boolean): void {
    this.waits.add({ until: this.now() + ANSWER_WAIT_MS, awaited });
    if (this.turning) return;
    this.next(this.turn);
    this.turning = true;
  }

  private readonly turn = (): void => {
    this.turns++;
    try {
      const now = this.now();
      for (const wait of this.waits) if (now >= wait.until || !wait.awaited()) this.waits.delete(wait);
    } catch (error) {
      // A bug, thrown on; the loop must not stay turning (or wedged) for waits it cannot judge.
      this.waits.clear();
      throw error;
    } finally {
      if (this.waits.size > 0) this.next(this.turn);
      else this.turning = false;
    }
  };
}
