// This worker thread's id and priority. The worker names its thread in each task's row so the core
// can lower a long task (core/worker-pool.ts), and lowers itself before its first command, which
// inherits LONG_CALL_NICE. Linux only: elsewhere a nice value is the whole process's.
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
    return Number(/\/(\d+)$/.exec(readlinkSync('/proc/thread-self'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}
