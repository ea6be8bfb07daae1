// When a worker thread waits awake for its next task instead of sleeping (lua-worker-entry.cts):
// only while its tasks come back to back, since waking a sleeping thread costs tens of µs on both
// sides on some machines (a virtual CPU's wake-up), and waiting awake costs a CPU meanwhile. See
// docs/decisions.md, "A worker stays awake between calls that come back to back". Times are
// performance.now() ms, passed in.

/**
 * How long a worker whose tasks come back to back waits awake for the next, polling its port,
 * before it sleeps. A task that came within this long of the worker running out of tasks (one such
 * a wait would have caught) starts it waiting awake.
 */
const AWAKE_FOR_NEXT_MS = 1;
/**
 * Waits awake in a row that caught nothing, after which the worker sleeps at once until a task
 * comes back to back again: one late call (a pause of the main thread, say) keeps it awake, calls
 * steadily a little further apart than the wait do not keep it spinning for nothing.
 */
const VAIN_WAITS_IN_A_ROW = 3;

class AwakeRule {
  /** How long a wait awake lasts (ms): AWAKE_FOR_NEXT_MS. */
  static readonly waitMs = AWAKE_FOR_NEXT_MS;

  /** When the worker last ran out of tasks, before it waited awake if it did. */
  private ranOutAt = -Infinity;
  /** Whether it waits awake when it runs out of tasks. */
  private waitsAwake = false;
  /** It waited awake when it last ran out of tasks, and no task has woken it since: that wait caught the next task. */
  private waited = false;
  private vainWaits = 0;

  /** A task came to the worker asleep: it waited awake in vain, or not at all. */
  woken(now: number): void {
    if (this.waited) this.waitsAwake = ++this.vainWaits < VAIN_WAITS_IN_A_ROW;
    else this.waitsAwake = now - this.ranOutAt < AWAKE_FOR_NEXT_MS;
    this.waited = false;
  }

  /**
   * The worker ran out of tasks: how long it waits awake for the next (0: it sleeps at once).
   * `spareCpu` false: other workers busy leave no CPU to wait on; it sleeps, and the rule stands.
   */
  ranOut(now: number, spareCpu = true): number {
    // Waited awake last time and not woken since: that wait caught the task.
    if (this.waited || !this.waitsAwake) this.vainWaits = 0;
    this.ranOutAt = now;
    this.waited = this.waitsAwake && spareCpu;
    return this.waited ? AWAKE_FOR_NEXT_MS : 0;
  }
}

export = AwakeRule;
