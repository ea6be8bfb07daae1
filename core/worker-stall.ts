// Whether a busy worker the host has not heard from for a while is held up by its task — a slow
// one, or one blocked in a system call — or only kept off the CPUs by a busy machine. The host's
// clock cannot tell the two apart; the thread's schedule can (thread-schedule.ts): a thread kept
// off the CPUs is runnable and barely runs, for given a CPU it would have got through its quick
// task and picked up the next; a thread held up by its task runs (a CPU-bound task sharing its CPU
// with others, even lowered, still gets its share) or is not runnable (asleep in a system call,
// stopped). Tasks waiting behind a slow task are better run by another worker; a worker the
// machine keeps waiting gains nothing from a rival but one more thread to share the CPUs with,
// and a start that costs about 50 ms of the CPU it is short of.
import { threadIsRunnable, threadRanNs } from './thread-schedule.js';

/** How long one look at a quiet worker's thread lasts before it is judged (ms): the pool's port watch comes this often. */
export const LOOK_MS = 5;
/** A look is judged once it has lasted this (ms): a timer may fire up to a millisecond early by performance.now(). */
const JUDGED_AFTER_MS = LOOK_MS - 1;
/**
 * A thread kept off the CPUs ran less than this in a look (ms): given more, a worker in a quick
 * task would have finished it. Not a share of the look: a slow CPU-bound call lowered to nice 10
 * gets under a tenth of a CPU it shares with one thread at nice 0 (weights 110 and 1024), and
 * still runs well past this in most looks.
 */
const KEPT_OFF_RAN_MS = 0.1;

/** How a thread's schedule is read: thread-schedule.ts, or made up by a test. */
export interface ScheduleReader {
  ranNs(threadId: number): number | undefined;
  isRunnable(threadId: number): boolean | undefined;
}

const SYSTEM_SCHEDULE: ScheduleReader = { ranNs: threadRanNs, isRunnable: threadIsRunnable };

export class WorkerStall {
  /** The quiet stretch being looked at: the ticket of the task the worker was on, and when the host last heard from it. */
  private ticket = 0;
  private heardAt = Number.NaN;
  /** When the current look began (performance.now()), and the CPU time its thread had used then. */
  private lookedAt = 0;
  private lookedRanNs = 0;
  /** Whether a look of this stretch found it held up: it stays so, for a slow task does not turn quick. */
  private heldUp = false;

  constructor(private readonly schedule: ScheduleReader = SYSTEM_SCHEDULE) {}

  /**
   * Whether the worker with thread `threadId`, on the task handed under `ticket` and not heard
   * from since `heardAt` (performance.now(), as `now`), is held up by that task: once a look of
   * the stretch found its thread running, or not runnable. A stretch's first call begins a look
   * and answers false, and each call JUDGED_AFTER_MS or more after a look began judges it (a look
   * lasts until then) and begins the next. True wherever the thread's schedule cannot be read (the
   * clock alone decides) or the thread is gone.
   */
  isHeldUp(threadId: number, ticket: number, heardAt: number, now: number): boolean {
    if (ticket !== this.ticket || heardAt !== this.heardAt) {
      const ranNs = this.schedule.ranNs(threadId);
      if (ranNs === undefined) return true;
      this.ticket = ticket;
      this.heardAt = heardAt;
      this.startLook(now, ranNs);
      this.heldUp = false;
      return false;
    }
    if (this.heldUp || now - this.lookedAt < JUDGED_AFTER_MS) return this.heldUp;
    const runnable = this.schedule.isRunnable(threadId);
    const ranNs = this.schedule.ranNs(threadId);
    if (runnable === undefined || ranNs === undefined) return true;
    this.heldUp = !runnable || (ranNs - this.lookedRanNs) / 1e6 >= KEPT_OFF_RAN_MS;
    this.startLook(now, ranNs);
    return this.heldUp;
  }

  private startLook(now: number, ranNs: number): void {
    this.lookedAt = now;
    this.lookedRanNs = ranNs;
  }
}
