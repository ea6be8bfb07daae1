// Whether a busy worker the host has not heard from for a while is held up by its task — a slow
// one, or one blocked in a system call — or only kept off the CPUs by a busy machine. The host's
// clock cannot tell the two apart; the thread's scheduler times can (thread-times.ts): a thread
// held up by its task runs or sleeps, one kept off the CPUs waits, runnable. Tasks waiting behind
// a slow task are better run by another worker; a worker the machine keeps waiting gains nothing
// from a rival but one more thread to share the CPUs with, and a start that costs about 50 ms of
// the CPU it is short of.
import { threadTimes, type ThreadTimes } from './thread-times.js';

/** How long one look at a quiet worker's thread lasts before it is judged (ms). */
const LOOK_MS = 5;
/** The share of a look a thread spent waiting for a CPU from which it was kept off the CPUs, not held up. */
const KEPT_OFF_SHARE = 3 / 4;

export class WorkerStall {
  /** The quiet stretch being looked at: the ticket of the task the worker was on, and when the host last heard from it. */
  private ticket = 0;
  private heardAt = Number.NaN;
  /** When the current look began (performance.now()), and the thread's wait time then (ns). */
  private lookedAt = 0;
  private waitedNs = 0;
  private heldUp = false;

  /** `readTimes`: how a thread's scheduler times are read. */
  constructor(private readonly readTimes: (threadId: number) => ThreadTimes | undefined = threadTimes) {}

  /**
   * Whether the worker with thread `threadId`, on the task handed under `ticket` and not heard from since `heardAt`
   * (performance.now(), as `now`), is held up by that task: true wherever the thread's times
   * cannot be read, as the clock alone says. A quiet stretch's first look counts as not held up;
   * it is judged LOOK_MS later, and again every LOOK_MS while the stretch lasts.
   */
  isHeldUp(threadId: number, ticket: number, heardAt: number, now: number): boolean {
    if (ticket !== this.ticket || heardAt !== this.heardAt) {
      const times = this.readTimes(threadId);
      if (times === undefined) return true;
      this.ticket = ticket;
      this.heardAt = heardAt;
      this.startLook(now, times.waitedNs);
      this.heldUp = false;
      return false;
    }
    if (now - this.lookedAt < LOOK_MS) return this.heldUp;
    const times = this.readTimes(threadId);
    if (times === undefined) return true;
    this.heldUp = (times.waitedNs - this.waitedNs) / 1e6 < KEPT_OFF_SHARE * (now - this.lookedAt);
    this.startLook(now, times.waitedNs);
    return this.heldUp;
  }

  private startLook(now: number, waitedNs: number): void {
    this.lookedAt = now;
    this.waitedNs = waitedNs;
  }
}
