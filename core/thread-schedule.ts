// How the scheduler treats one of this process's threads (Linux): the CPU time it has used, from
// /proc/self/task/<tid>/schedstat, and whether it is runnable (running, or waiting for a CPU) or
// not (asleep, blocked in a system call, stopped), from .../stat. The host reads them where its
// own clock cannot tell a worker busy with a slow task from one the machine keeps off the CPUs:
// preempted for 10 ms between two 5 µs calls, the second looks like a slow call. (The time a
// thread waited for a CPU, schedstat's second field, is added only once it gets one, so it says
// nothing of a wait still going on.)
import { readFileSync } from 'node:fs';

/** The CPU time (ns) the thread has used, or undefined where it cannot be read (no thread id, not Linux, the thread gone). */
export function threadRanNs(threadId: number): number | undefined {
  const text = readTaskFile(threadId, 'schedstat');
  if (text === undefined) return undefined;
  const ranNs = Number(text.slice(0, text.indexOf(' ')));
  return Number.isFinite(ranNs) ? ranNs : undefined;
}

/** Whether the thread is runnable (its state R), or undefined where that cannot be read. */
export function threadIsRunnable(threadId: number): boolean | undefined {
  const text = readTaskFile(threadId, 'stat');
  // The state follows the command name, which is in parentheses and may hold spaces.
  const state = text?.[text.lastIndexOf(')') + 2];
  return state === undefined ? undefined : state === 'R';
}

let readable: boolean | undefined;

/** Whether this system shows its threads' schedules at all (this thread's, to begin with): where it does, a thread that cannot be read is gone. */
export function schedulesReadable(): boolean {
  readable ??= readQuietly('/proc/thread-self/schedstat') !== undefined;
  return readable;
}

function readTaskFile(threadId: number, file: 'schedstat' | 'stat'): string | undefined {
  return threadId === 0 ? undefined : readQuietly(`/proc/self/task/${threadId}/${file}`);
}

function readQuietly(path: string): string | undefined {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return undefined;
  }
}
