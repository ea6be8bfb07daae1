// The worker's half of a task's pid row: Int32 slots in the pool's shared table, where each
// spawned process group's pid is stored the moment `spawn` returns, so the core can kill the
// groups even after it has terminated this worker.

export class ChildPidTable {
  private readonly slots: Int32Array;

  constructor(buffer: SharedArrayBuffer, row: number, slotsPerRow: number) {
    this.slots = new Int32Array(buffer, row * slotsPerRow * Int32Array.BYTES_PER_ELEMENT, slotsPerRow);
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
