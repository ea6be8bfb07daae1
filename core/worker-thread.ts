// How a Lua worker thread is started: from the CommonJS entry that import()s the ES worker (see
// workers/lua-worker-entry.cts and docs/decisions.md, "Workers load through import()"), with a small
// V8 young generation, given its config at once or, for a thread started ahead of its pool
// (prestarted-workers.ts), in its first message.
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { WorkerConfig } from '../shared/protocol.js';

// A path: a worker is started from it.
export const WORKER_ENTRY = fileURLToPath(new URL('../workers/lua-worker-entry.cjs', import.meta.url));
/**
 * A worker's V8 young generation. Lua's heap lives in wasm memory, so a worker's JS allocates
 * little; V8's default lets the young generation grow to several MB per worker that stay
 * committed: 2 MB is about 2 MB less RSS per module, at a price when many start at once (see
 * docs/decisions.md, "Start-up and worker memory").
 */
const WORKER_YOUNG_GENERATION_MB = 2;

/**
 * A new worker thread, unreferenced (its pool keeps the process alive while it has tasks);
 * `config` null: it waits for its config as its first message.
 */
export function startWorkerThread(config: WorkerConfig | null): Worker {
  const thread = new Worker(WORKER_ENTRY, { workerData: config, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB }, trackUnmanagedFds: true });
  thread.unref();
  return thread;
}
