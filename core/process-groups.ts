// The core's half of a pool's task table: one SharedArrayBuffer per pool, given to its workers
// once (in workerData), with a row of Int32 words per task (layout in protocol.ts): when a worker
// picked the task up and when its own work began, as ms since the pool's epoch plus one (0 until
// then); the task's CPU seat; a random word that makes the task's process tag; and the pid of
// every process group the task starts. When the task ends, however it ends, the core ends every
// process it started (process-sweep.ts), even though the worker may be gone.
import { randomInt } from 'node:crypto';
import { SEAT_WORDS } from './cpu-slots.js';
import { sweepTaskProcesses } from './process-sweep.js';
import { processTag } from './process-tag.js';
import { ROW_FIRST_PID, ROW_PICKED, ROW_SEAT, ROW_TAG, TASK_ROW_WORDS, type ROW_STARTED } from './protocol.js';

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
    const row = this.free.pop() ?? (this.rows < this.capacity ? this.rows++ : undefined);
    if (row !== undefined) Atomics.store(this.slots, row * TASK_ROW_WORDS + ROW_TAG, randomInt(1, 2 ** 31));
    return row;
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

  /**
   * Ends every process the task in `row` started, however the task ended: its groups, and what
   * left them (process-sweep.ts). Costs nothing for a task that started none. Returns how many
   * signals were sent.
   */
  endTask(row: number): number {
    const groups: number[] = [];
    for (let i = row * TASK_ROW_WORDS + ROW_FIRST_PID; i < (row + 1) * TASK_ROW_WORDS; i++) {
      const pid = Atomics.load(this.slots, i);
      if (pid !== 0) groups.push(pid);
    }
    if (groups.length === 0) return 0;
    const tag = processTag(this.epochMs, row, Atomics.load(this.slots, row * TASK_ROW_WORDS + ROW_TAG));
    return sweepTaskProcesses({ tag, groups, startedMs: this.stamp(row, ROW_PICKED) ?? this.epochMs });
  }
}
