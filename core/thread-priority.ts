// Lowers a long task's thread from the host's side: workers run at nice 0, so the many short calls
// are not slowed, and the pool's deadline sweep renices to LONG_CALL_NICE the thread of a task that
// has run FREE_RUN_MS and then used FREE_RUN_MS more of CPU, once per task — Lua that never
// reaches a checkpoint too. A thread the machine only kept waiting for a CPU is not lowered: a
// worker stays lowered for good, and every short call after it would then wait behind the
// host's own thread (see thread-schedule.ts). The worker names its thread in the task's row (Linux;
// elsewhere none, and nothing is done here).
import { setPriority } from 'node:os';
import { FREE_RUN_MS, LONG_CALL_NICE } from '../shared/call-priority.js';
import type { TaskTable } from '../shared/task-table.js';
import { schedulesReadable, threadRanNs } from './thread-schedule.js';

/** What the sweep saw of a task's thread: its CPU time (ns) when the task was first seen past FREE_RUN_MS. */
export interface LongTaskLook {
  ranNs: number | undefined;
}

/**
 * Renices the thread running the task in `row` once the task began (`startedMs`, Date.now() ms)
 * FREE_RUN_MS before `nowMs` and its thread has since used FREE_RUN_MS of CPU, counted from the
 * first sweep that found it past FREE_RUN_MS (kept in `look`); by the clock alone where the
 * system shows no thread's schedule. The row's thread word is taken, so this happens once.
 */
export function lowerLongTask(table: TaskTable, row: number, startedMs: number | undefined, nowMs: number, look: LongTaskLook): void {
  if (startedMs === undefined || nowMs - startedMs < FREE_RUN_MS) return;
  const running = table.threadOf(row);
  if (running === 0) return;
  if (schedulesReadable()) {
    const ranNs = threadRanNs(running);
    // Gone: its worker was terminated.
    if (ranNs === undefined) return;
    look.ranNs ??= ranNs;
    if (ranNs - look.ranNs < FREE_RUN_MS * 1e6) return;
  }
  const threadId = table.takeThread(row);
  if (threadId === 0) return;
  try {
    setPriority(threadId, LONG_CALL_NICE);
  } catch {
    // The thread has exited (its task ended, its worker was terminated): nothing left to lower.
  }
}
