// When a worker thread waits awake for its next task instead of sleeping (lua-worker-entry.cts):
// only while its tasks come back to back, since waking a sleeping thread costs tens of µs on both
// sides on some machines (a virtual CPU's wake-up), and waiting awake costs a CPU meanwhile. See
// docs/decisions.md, "A worker stays awake between calls that come back to back". Times are
// performance.now() ms, passed in.

/** How long a worker whose tasks come back to back waits awake for the next, polling its port, before it sleeps. */
const AWAKE_FOR_NEXT_MS = 0.5;
/** A task that came within this long of the worker falling asleep is one of a run of calls: the worker waits awake after it. */
const BACK_TO_BACK_MS = 1;

class AwakeRule {
  /** When the worker fell asleep: ran out of tasks, and waited awake for the next in vain if it did. */
  private asleepSince = -Infinity;
  private backToBack = false;

  /** A task came to the worker asleep. */
  woken(now: number): void {
    this.backToBack = now - this.asleepSince < BACK_TO_BACK_MS;
  }

  /** The worker ran out of tasks: how long it waits awake for the next (0: it sleeps at once). */
  ranOut(now: number): number {
    const awakeMs = this.backToBack ? AWAKE_FOR_NEXT_MS : 0;
    this.asleepSince = now + awakeMs;
    return awakeMs;
  }
}

export = AwakeRule;
