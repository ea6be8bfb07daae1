// Keeps count of worker threads told to stop that have not stopped. `worker.terminate()` cannot
// interrupt a thread blocked in a system call (a FIFO no one writes to, a hung mount): it holds its
// memory and makes Node's exit wait for it. The host reports them (`stats().stuckThreads`) and its
// close waits for them only so long, longer on a loaded machine, where exiting takes CPU time too.
import { availableParallelism, loadavg } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { within } from '../shared/within.js';

/** A thread that has not exited this long after it was told to stop counts as stuck, on an idle machine. */
export const STUCK_AFTER_MS = 1_000;
/** Most times STUCK_AFTER_MS a loaded machine stretches the wait to. */
const MAX_STRETCH = 10;

/** How long a thread told to stop now has to exit: STUCK_AFTER_MS times the load average per CPU, within 1 to MAX_STRETCH times. */
export function stuckAfterMs(): number {
  const perCpu = loadavg()[0]! / availableParallelism();
  return Math.round(STUCK_AFTER_MS * Math.min(MAX_STRETCH, Math.max(1, perCpu)));
}

export class ThreadWatch {
  /** Live threads by thread id: each one's exit. */
  private readonly live = new Map<number, Promise<void>>();
  /** Threads told to stop, not yet exited, by thread id: when they count as stuck. */
  private readonly stopping = new Map<number, number>();

  /** A thread to watch; false if it is watched already or has exited. */
  started(worker: Worker): boolean {
    const id = worker.threadId;
    if (id < 0 || this.live.has(id)) return false;
    const exit = new Promise<void>((resolve) =>
      worker.once('exit', () => {
        this.live.delete(id);
        this.stopping.delete(id);
        resolve();
      }),
    );
    this.live.set(id, exit);
    return true;
  }

  /** The thread with this id was told to stop (terminated). */
  stopped(threadId: number): void {
    if (this.live.has(threadId) && !this.stopping.has(threadId))
      this.stopping.set(threadId, Date.now() + stuckAfterMs());
  }

  alive(): number {
    return this.live.size;
  }

  /** Threads told to stop that are still running past their time to exit (stuckAfterMs). */
  stuck(): number {
    const now = Date.now();
    return [...this.stopping.values()].filter((deadline) => now >= deadline).length;
  }

  /** Resolves once every thread told to stop has exited or counts as stuck. */
  async settled(): Promise<void> {
    if (this.stopping.size === 0) return;
    // A thread told to stop is live until its exit, which deletes it from both maps.
    const exits = [...this.stopping.keys()].map((id) => this.live.get(id)!);
    await within(Promise.all(exits), Math.max(...this.stopping.values()) - Date.now());
  }
}
