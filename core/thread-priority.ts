// Lowers a long task's thread from the host's side: workers run at nice 0, so the many short calls
// are not slowed, and the pool's deadline sweep renices the thread of a task that has run
// FREE_RUN_MS to LONG_CALL_NICE, once per task — Lua that never reaches a checkpoint too. The
// worker names its thread in the task's row (Linux; elsewhere none, and nothing is done here).
import { setPriority } from 'node:os';
import { FREE_RUN_MS, LONG_CALL_NICE } from '../shared/call-priority.js';
import type { TaskTable } from '../shared/task-table.js';

/**
 * Renices the thread running the task in `row` if the task began (`startedMs`, Date.now() ms)
 * at least FREE_RUN_MS before `nowMs`; the row's thread word is taken, so this happens once.
 */
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
