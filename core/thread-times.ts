// How the scheduler has treated one of this process's threads (Linux): the time it has run on a
// CPU and the time it has waited, runnable, for one, from /proc/self/task/<tid>/schedstat. A
// thread that neither ran nor waited slept (blocked in a system call, or idle). The host reads it
// where its own clock cannot tell a worker busy with a slow task from one the machine kept off
// the CPUs: preempted for 10 ms between two 5 µs calls, the second looks like a slow call.
import { readFileSync } from 'node:fs';

/** Nanoseconds since the thread started. */
export interface ThreadTimes {
  ranNs: number;
  waitedNs: number;
}

/** The thread's times, or undefined where they cannot be read (no thread id, not Linux, no schedstat, the thread gone). */
export function threadTimes(threadId: number): ThreadTimes | undefined {
  if (threadId === 0) return undefined;
  let text: string;
  try {
    text = readFileSync(`/proc/self/task/${threadId}/schedstat`, 'latin1');
  } catch {
    return undefined;
  }
  const [ran, waited] = text.split(' ');
  const ranNs = Number(ran);
  const waitedNs = Number(waited);
  return Number.isFinite(ranNs) && Number.isFinite(waitedNs) ? { ranNs, waitedNs } : undefined;
}
