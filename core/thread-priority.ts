// Lowers a long task's thread from the host's side: workers run at nice 0, so the many short calls
// are not slowed, and the pool's deadline sweep renices to LONG_CALL_NICE the thread of a task that
// has run FREE_RUN_MS, once per task — Lua that never reaches a checkpoint too, so that a CPU-bound
// tool leaves the host's own thread (the dashboard, a server) its CPU. A worker stays lowered
// for the tasks it runs after. The worker names its thread in the task's row (Linux; elsewhere
// none, and nothing is done here).
import { setPriority } from 'node:os';
import { FREE_RUN_MS, LONG_CALL_NICE } from '../shared/call-priority.js';
import type { TaskTable } from '../shared/task-table.js';

/** Renices the thread running the task in `row` once the task began (`startedMs`, Date.now() ms) FREE_RUN_MS before `nowMs`. */
export function lowerLongTask(table: TaskTable, row: number, startedMs: number | undefined, nowMs: number): void {
  if (startedMs === undefined || nowMs - startedMs < FREE_RUN_MS) return;
  const threadId = table.takeThread(row);
  if (threadId === 0) return;
  try {
    setPriority(threadId, LONG_CALL_NICE);
  } catch {
    // The thread has exited (its task ended, its worker was terminated): nothing left to lower.
  }
}
