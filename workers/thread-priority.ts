// This worker thread's id and priority. A worker runs at nice 0 and names its thread in each task's
// row, so the core can lower a task that runs long (core/worker-pool.ts); it lowers itself,
// once, before the first command it starts, so that commands run at LONG_CALL_NICE. Linux only: on
// Linux a nice value belongs to a thread; elsewhere it is the whole process's, and is left alone.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { LONG_CALL_NICE } from '../shared/call-priority.js';

/** This thread's Linux thread id, or 0 where it cannot be read (another platform, no /proc). */
const THREAD_ID = readThreadId();

let lowered = false;

/** Whether the core can lower this thread: without its id, it cannot. */
export const lowerableByCore = THREAD_ID !== 0;

/** The thread id a task's row names for the core to lower; 0 once this thread has lowered itself. */
export function threadToLower(): number {
  return lowered ? 0 : THREAD_ID;
}

/** Renices this thread to LONG_CALL_NICE (once; an unprivileged thread cannot raise it back). */
export function lowerThisThread(): void {
  if (lowered || process.platform !== 'linux') return;
  lowered = true;
  setPriority(0, LONG_CALL_NICE);
}

function readThreadId(): number {
  if (process.platform !== 'linux') return 0;
  try {
    // "PID/task/TID"
    const link = readlinkSync('/proc/thread-self');
    const id = Number(link.slice(link.lastIndexOf('/') + 1));
    return Number.isSafeInteger(id) && id > 0 ? id : 0;
  } catch {
    return 0;
  }
}
