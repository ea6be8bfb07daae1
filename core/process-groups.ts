// The core's half of a pool's task table: one SharedArrayBuffer per pool, given to its workers
// once (in workerData), with a row of Int32 words per task (layout in protocol.ts): when a worker
// picked the task up and when its own work began, as ms since the pool's epoch plus one (0 until
// then); the task's CPU seat; and the pid of every process group the task starts, so after a
// timeout, cancellation or crash the core kills every group in the row, even though the worker is
// gone.
import { SEAT_WORDS } from './cpu-slots.js';
import { ROW_FIRST_PID, ROW_SEAT, TASK_ROW_WORDS, type ROW_PICKED, type ROW_STARTED } from './protocol.js';

export class PidTable {
  readonly buffer: SharedArrayBuffer;
  /** Date.now() when the table was made: start stamps count from here. */
  readonly epochMs = Date.now();
  private readonly slots: Int32Array;
  private readonly free: number[] = [];
  private readonly seats: Int32Array[] = [];
  private rows = 0;

  constructor(private readonly capacity: number) {
    this.buffer = new SharedArrayBuffer(capacity * TASK_ROW_WORDS * Int32Array.BYTES_PER_ELEMENT);
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
    this.slots.fill(0, row * TASK_ROW_WORDS, (row + 1) * TASK_ROW_WORDS);
    this.free.push(row);
  }

  /** A stamp of the task in `row` (Date.now() ms), or undefined until it is set. */
  stamp(row: number, word: typeof ROW_PICKED | typeof ROW_STARTED): number | undefined {
    const value = Atomics.load(this.slots, row * TASK_ROW_WORDS + word);
    return value === 0 ? undefined : this.epochMs + value - 1;
  }

  /** The task's seat in the CPU slot queue (one view per row, made once). */
  seat(row: number): Int32Array {
    return (this.seats[row] ??= this.slots.subarray(row * TASK_ROW_WORDS + ROW_SEAT, row * TASK_ROW_WORDS + ROW_SEAT + SEAT_WORDS));
  }

  /** Sends SIGKILL to every group recorded in `row`; returns how many were still there. */
  killRow(row: number): number {
    let killed = 0;
    for (let i = row * TASK_ROW_WORDS + ROW_FIRST_PID; i < (row + 1) * TASK_ROW_WORDS; i++) {
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
