// The worker's half of a task's row in the pool's shared table: slots 0 and 1 say when the task
// was picked up and when its own work began (so waiting, and a cold worker's load, do not count
// against its timeout); the others receive each spawned process group's pid the moment `spawn`
// returns, so the core can kill the groups even after it has terminated this worker.

const PICKED_SLOT = 0;
const STARTED_SLOT = 1;
const FIRST_PID_SLOT = 2;

export class ChildPidTable {
  private readonly slots: Int32Array;

  constructor(buffer: SharedArrayBuffer, row: number, slotsPerRow: number) {
    this.slots = new Int32Array(buffer, (row * slotsPerRow + FIRST_PID_SLOT) * Int32Array.BYTES_PER_ELEMENT, slotsPerRow - FIRST_PID_SLOT);
  }

  /** Stamps the row: the task was picked up (`picked`) or its own work begins (`started`). */
  static stamp(buffer: SharedArrayBuffer, row: number, slotsPerRow: number, epochMs: number, which: 'picked' | 'started'): void {
    Atomics.store(new Int32Array(buffer), row * slotsPerRow + (which === 'picked' ? PICKED_SLOT : STARTED_SLOT), Date.now() - epochMs + 1);
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

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
