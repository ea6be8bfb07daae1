// Whether a busy worker the host has not heard from for a while is held up by its task — a slow
// one, or one blocked in a system call — or only kept off the CPUs by a busy machine. The host's
// clock cannot tell the two apart; the thread's scheduler times can (thread-times.ts): a thread
// held up by its task runs (even a CPU-bound task sharing a CPU with others gets its share) or
// sleeps, while a worker kept off the CPUs waits, runnable, and barely runs: given the CPU, it
// would have got through its quick task and picked up the next. Tasks waiting behind a slow task
// are better run by another worker; a worker the machine keeps waiting gains nothing from a rival
// but one more thread to share the CPUs with, and a start that costs about 50 ms of the CPU it is
// short of.
import { threadTimes, type ThreadTimes } from './thread-times.js';

/** How long one look at a quiet worker's thread lasts before it is judged (ms). */
const LOOK_MS = 5;
/** A thread kept off the CPUs waited for one at least this share of a look ... */
const KEPT_OFF_WAITED_SHARE = 1 / 2;
/** ... and ran less than this share of it. */
const KEPT_OFF_RAN_SHARE = 1 / 10;

export class WorkerStall {
  /** The quiet stretch being looked at: the ticket of the task the worker was on, and when the host last heard from it. */
  private ticket = 0;
  private heardAt = Number.NaN;
  /** When the current look began (performance.now()), and the thread's times then. */
  private lookedAt = 0;
  private lookedTimes: ThreadTimes = { ranNs: 0, waitedNs: 0 };
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
      this.startLook(now, times);
      this.heldUp = false;
      return false;
    }
    if (now - this.lookedAt < LOOK_MS) return this.heldUp;
    const times = this.readTimes(threadId);
    if (times === undefined) return true;
    const lookMs = now - this.lookedAt;
    const waitedMs = (times.waitedNs - this.lookedTimes.waitedNs) / 1e6;
    const ranMs = (times.ranNs - this.lookedTimes.ranNs) / 1e6;
    this.heldUp = waitedMs < KEPT_OFF_WAITED_SHARE * lookMs || ranMs >= KEPT_OFF_RAN_SHARE * lookMs;
    this.startLook(now, times);
    return this.heldUp;
  }

  private startLook(now: number, times: ThreadTimes): void {
    this.lookedAt = now;
    this.lookedTimes = times;
  }
}
