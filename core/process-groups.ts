// The core's half of a pool's pid table: one SharedArrayBuffer per pool, given to its workers
// once (in workerData), with a row of Int32 slots per task. The worker stores the pid of every
// process group a task starts in that task's row; after a timeout, cancellation or crash the core
// kills every group in the row, even though the worker is gone.

/** Process groups one task can have alive at once. */
export const PID_SLOTS_PER_ROW = 64;

export class PidTable {
  readonly buffer: SharedArrayBuffer;
  private readonly slots: Int32Array;
  private readonly free: number[] = [];
  private rows = 0;

  constructor(private readonly capacity: number) {
    this.buffer = new SharedArrayBuffer(capacity * PID_SLOTS_PER_ROW * Int32Array.BYTES_PER_ELEMENT);
    this.slots = new Int32Array(this.buffer);
  }

  /** A zeroed row for one task, or undefined when every row is taken. */
  acquire(): number | undefined {
    const recycled = this.free.pop();
    if (recycled !== undefined) return recycled;
    return this.rows < this.capacity ? this.rows++ : undefined;
  }

  /** Gives a row back once no worker can write to it any more (its task has ended). */
  release(row: number): void {
    this.slots.fill(0, row * PID_SLOTS_PER_ROW, (row + 1) * PID_SLOTS_PER_ROW);
    this.free.push(row);
  }

  /** Sends SIGKILL to every group recorded in `row`; returns how many were still there. */
  killRow(row: number): number {
    let killed = 0;
    for (let i = row * PID_SLOTS_PER_ROW; i < (row + 1) * PID_SLOTS_PER_ROW; i++) {
      const pid = Atomics.load(this.slots, i);
      if (pid === 0) continue;
      try {
        process.kill(-pid, 'SIGKILL');
        killed++;
      } catch {
        // The group has already exited.
      }
    }
    return killed;
  }
}
