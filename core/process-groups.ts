// The core's half of a task's pid table: a SharedArrayBuffer the worker fills with the pid of
// every process group it starts. After a timeout, cancellation or crash, every group is killed.

/** Process groups one task can record. */
export const PID_SLOTS = 1024;

export function createPidBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(PID_SLOTS * Int32Array.BYTES_PER_ELEMENT);
}

/** Sends SIGKILL to every recorded group; returns how many were still there. */
export function killProcessGroups(buffer: SharedArrayBuffer): number {
  const slots = new Int32Array(buffer);
  let killed = 0;
  for (let i = 0; i < slots.length; i++) {
    const pid = Atomics.load(slots, i);
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
