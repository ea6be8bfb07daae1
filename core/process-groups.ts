// The core's half of a pool's task table: one SharedArrayBuffer per pool, given to its workers
// once (in workerData), with a row of Int32 slots per task. Slot 0 is when a worker picked the
// task up and slot 1 when its own work began (after a cold worker loaded the config), as ms since
// the pool's epoch plus one, 0 until then; the rest hold the pid of every process group the task
// starts, so after a timeout, cancellation or crash the core kills every group in the row, even
// though the worker is gone.

/** Slots per task: two stamps, then the process groups it can have alive at once. */
export const PID_SLOTS_PER_ROW = 64;
export const PICKED_SLOT = 0;
export const STARTED_SLOT = 1;
const FIRST_PID_SLOT = 2;

export class PidTable {
  readonly buffer: SharedArrayBuffer;
  /** Date.now() when the table was made: start stamps count from here. */
  readonly epochMs = Date.now();
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

  /** A stamp of the task in `row` (Date.now() ms), or undefined until it is set. */
  stamp(row: number, slot: typeof PICKED_SLOT | typeof STARTED_SLOT): number | undefined {
    const value = Atomics.load(this.slots, row * PID_SLOTS_PER_ROW + slot);
    return value === 0 ? undefined : this.epochMs + value - 1;
  }

  /** Sends SIGKILL to every group recorded in `row`; returns how many were still there. */
  killRow(row: number): number {
    let killed = 0;
    for (let i = row * PID_SLOTS_PER_ROW + FIRST_PID_SLOT; i < (row + 1) * PID_SLOTS_PER_ROW; i++) {
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
