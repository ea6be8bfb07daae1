// The worker's half of its pool's task table (a SharedArrayBuffer shared with the core): per task a
// row whose slots 0 and 1 say when the task was picked up and when its own work began (so waiting,
// and a cold worker's load, do not count against its timeout), and whose other slots receive each
// spawned process group's pid the moment `spawn` returns, so the core can kill the groups even
// after it has terminated this worker.

const PICKED_SLOT = 0;
const STARTED_SLOT = 1;
const FIRST_PID_SLOT = 2;

/** The pid slots of one task's row. */
export class ChildPidTable {
  private readonly slots: Int32Array;

  constructor(buffer: SharedArrayBuffer, row: number, slotsPerRow: number) {
    this.slots = new Int32Array(buffer, (row * slotsPerRow + FIRST_PID_SLOT) * Int32Array.BYTES_PER_ELEMENT, slotsPerRow - FIRST_PID_SLOT);
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

/** A worker's view of the whole table, made once: stamps, and each row's pid slots (kept, since rows are reused). */
export class TaskTable {
  private readonly slots: Int32Array;
  private readonly rows = new Map<number, ChildPidTable>();

  constructor(
    private readonly buffer: SharedArrayBuffer,
    private readonly slotsPerRow: number,
    private readonly epochMs: number,
  ) {
    this.slots = new Int32Array(buffer);
  }

  /** Stamps the row: the task was picked up (`picked`) or its own work begins (`started`). */
  stamp(row: number, which: 'picked' | 'started'): void {
    Atomics.store(this.slots, row * this.slotsPerRow + (which === 'picked' ? PICKED_SLOT : STARTED_SLOT), Date.now() - this.epochMs + 1);
  }

  pids(row: number): ChildPidTable {
    let table = this.rows.get(row);
    if (!table) {
      table = new ChildPidTable(this.buffer, row, this.slotsPerRow);
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
