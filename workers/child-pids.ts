// The worker's half of its pool's task table (a SharedArrayBuffer shared with the core; layout in
// protocol.ts): per task a row that says when the task was picked up and when its own work began
// (so waiting, and a cold worker's load, do not count against its timeout), holds the task's CPU
// seat and the word of its process tag, and receives each spawned process group's pid the moment
// `spawn` returns. A task that ends here has its processes ended here; one whose worker was
// terminated has them ended by the core, from the same row.
import { SEAT_WORDS } from '../core/cpu-slots.js';
import { sweepTaskProcesses } from '../core/process-sweep.js';
import { processTag } from '../core/process-tag.js';
import { ROW_FIRST_PID, ROW_PICKED, ROW_SEAT, ROW_STARTED, ROW_TAG, TASK_ROW_WORDS } from '../core/protocol.js';

/** Most process groups one task may have alive at once (the pid slots of its row). */
export const MAX_LIVE_GROUPS = TASK_ROW_WORDS - ROW_FIRST_PID;

/** The pid slots of one task's row, and its process tag. */
export class ChildPidTable {
  private readonly slots: Int32Array;
  private readonly tagWord: Int32Array;

  private readonly picked: Int32Array;

  constructor(
    buffer: SharedArrayBuffer,
    private readonly row: number,
    private readonly epochMs: number,
  ) {
    this.slots = new Int32Array(buffer, (row * TASK_ROW_WORDS + ROW_FIRST_PID) * Int32Array.BYTES_PER_ELEMENT, MAX_LIVE_GROUPS);
    this.tagWord = new Int32Array(buffer, (row * TASK_ROW_WORDS + ROW_TAG) * Int32Array.BYTES_PER_ELEMENT, 1);
    this.picked = new Int32Array(buffer, (row * TASK_ROW_WORDS + ROW_PICKED) * Int32Array.BYTES_PER_ELEMENT, 1);
  }

  /**
   * Ends every process the task started, here on the worker's thread rather than the host's, and
   * clears the row's pid slots so the core has nothing left to do. (After a timeout, cancellation
   * or crash the worker never gets here, and the core sweeps.)
   */
  endTask(): void {
    const groups = [...this.slots].filter((pid) => pid !== 0);
    if (groups.length === 0) return;
    const picked = Atomics.load(this.picked, 0);
    sweepTaskProcesses({ tag: this.tag, groups, startedMs: picked === 0 ? this.epochMs : this.epochMs + picked - 1 });
    this.slots.fill(0);
  }

  /** The running task's process tag, for PROCESS_TAG_VARIABLE. */
  get tag(): string {
    return processTag(this.epochMs, this.row, Atomics.load(this.tagWord, 0));
  }

  /** Records `pid`; false when every slot holds a group that is still alive. */
  record(pid: number): boolean {
    for (let i = 0; i < this.slots.length; i++) {
      if (Atomics.compareExchange(this.slots, i, 0, pid) === 0) return true;
    }
    for (let i = 0; i < this.slots.length; i++) {
      const previous = Atomics.load(this.slots, i);
      if (!groupAlive(previous) && Atomics.compareExchange(this.slots, i, previous, pid) === previous) return true;
    }
    return false;
  }
}

export class TaskTable {
  private readonly slots: Int32Array;
  private readonly rows = new Map<number, ChildPidTable>();
  private readonly seats: Int32Array[] = [];

  constructor(
    private readonly buffer: SharedArrayBuffer,
    private readonly epochMs: number,
  ) {
    this.slots = new Int32Array(buffer);
  }

  /** Stamps the row: the task was picked up (`picked`) or its own work begins (`started`). */
  stamp(row: number, which: 'picked' | 'started'): void {
    Atomics.store(this.slots, row * TASK_ROW_WORDS + (which === 'picked' ? ROW_PICKED : ROW_STARTED), Date.now() - this.epochMs + 1);
  }

  /** The task's seat in the CPU slot queue (one view per row, made once). */
  seat(row: number): Int32Array {
    return (this.seats[row] ??= this.slots.subarray(row * TASK_ROW_WORDS + ROW_SEAT, row * TASK_ROW_WORDS + ROW_SEAT + SEAT_WORDS));
  }

  pids(row: number): ChildPidTable {
    let table = this.rows.get(row);
    if (!table) {
      table = new ChildPidTable(this.buffer, row, this.epochMs);
      this.rows.set(row, table);
    }
    return table;
  }
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
