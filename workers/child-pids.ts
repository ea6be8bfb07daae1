// The worker's half of its pool's task table (a SharedArrayBuffer shared with the core; layout in
// protocol.ts): per task a row that says when the task was picked up and when its own work began
// (so waiting, and a cold worker's load, do not count against its timeout), holds the task's CPU
// seat, and receives each spawned process group's pid the moment `spawn` returns, so the core can
// kill the groups even after it has terminated this worker.
import { SEAT_WORDS } from '../core/cpu-slots.js';
import { ROW_FIRST_PID, ROW_PICKED, ROW_SEAT, ROW_STARTED, TASK_ROW_WORDS } from '../core/protocol.js';

/** The pid slots of one task's row. */
export class ChildPidTable {
  private readonly slots: Int32Array;

  constructor(buffer: SharedArrayBuffer, row: number) {
    this.slots = new Int32Array(buffer, (row * TASK_ROW_WORDS + ROW_FIRST_PID) * Int32Array.BYTES_PER_ELEMENT, TASK_ROW_WORDS - ROW_FIRST_PID);
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

/** A worker's view of the whole table, made once: stamps, seats, and each row's pid slots (kept, since rows are reused). */
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
      table = new ChildPidTable(this.buffer, row);
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
