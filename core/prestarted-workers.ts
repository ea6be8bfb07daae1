// Worker threads started before anything needs them: the CLI starts the ones its command will use
// first thing, so their bootstrap (Node's, then the worker's code and wasmoon's) overlaps the
// loading of the CLI's own modules and the config. A pool about to start a worker takes one of
// these instead and sends it its config; one never taken ends with the process.
import type { Worker } from 'node:worker_threads';
import { startWorkerThread } from './worker-thread.js';

const waiting = new Set<Worker>();

/** Starts `count` worker threads that wait for their config. */
export function prestartWorkers(count: number): void {
  for (let i = 0; i < count; i++) {
    const thread = startWorkerThread(null);
    waiting.add(thread);
    // One that cannot start (its file missing, say) is simply not taken: the pool starting its
    // own worker then meets the same failure and reports it.
    thread.on('error', () => undefined);
    thread.once('exit', () => waiting.delete(thread));
  }
}

/** A prestarted thread still running, taken for good; undefined when none is left. */
export function takePrestartedThread(): Worker | undefined {
  for (const thread of waiting) {
    waiting.delete(thread);
    return thread;
  }
  return undefined;
}
