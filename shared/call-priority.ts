// How long a call runs ahead of the rest, and what it gives way with after that: for its first
// FREE_RUN_MS a call holds no CPU turn and runs at full priority, so the many short calls pay for
// neither; past that it queues for a turn (workers/cpu-turns.ts) and its thread is reniced to
// LONG_CALL_NICE (core/worker-pool.ts). Commands a tool starts run at LONG_CALL_NICE always.

/** How long a call runs freely, in ms: no CPU turn, no lowered priority. */
export const FREE_RUN_MS = 10;
/** The nice value of a call's thread once it has run FREE_RUN_MS, and of every command it starts. */
export const LONG_CALL_NICE = 10;
