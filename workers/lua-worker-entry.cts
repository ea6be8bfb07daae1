// The CommonJS file piscina loads in each Lua worker (core/worker-pool.ts): it import()s the ES
// worker (lua-worker.ts), starts it, and posts one end of its event channel to the main thread.
// CommonJS because Node aborts (a failed CHECK) when a worker is terminated while require() loads
// an ES module; the bundle built from this file loads none.
import type { MessagePort } from 'node:worker_threads';
import type { TaskHandler, WorkerConfig, WorkerEventsPort, WorkerTask } from '../shared/protocol.js';

type WorkerModule = { startWorker(config: WorkerConfig, events: MessagePort): TaskHandler };

const workerThreads = process.getBuiltinModule('node:worker_threads');
const channel = new workerThreads.MessageChannel();
// Unreferenced so that an idle worker can still be reaped.
channel.port1.unref();
const handler: Promise<TaskHandler> = import('./lua-worker.js').then((module: WorkerModule) => {
  const serve = module.startWorker(workerThreads.workerData as WorkerConfig, channel.port1);
  // The pool counts the worker as up once its code has loaded: one stuck loading it is terminated.
  const up: WorkerEventsPort = { moonpoolEventsPort: channel.port2, threadId: workerThreads.threadId };
  workerThreads.parentPort?.postMessage(up, [channel.port2]);
  return serve;
});
/** Why this worker's code could not load. */
const startFailure = (error: unknown): Error =>
  new Error(`a worker could not start: ${error instanceof Error ? error.message : String(error)}`);
// A worker whose code could not load fails at once, task or none (the error, uncaught, ends the
// thread with that message): one left idle, started for a task another worker took or that was
// stopped, would be handed the next call, even once the code loads again. Required outside a
// worker (to check what it loads), it ends nothing.
handler.catch((error: unknown) => {
  if (workerThreads.isMainThread) return;
  setImmediate(() => {
    throw startFailure(error);
  });
});

/** Runs one task; a worker whose code could not load answers it with why before it fails. */
async function handle(task: WorkerTask): Promise<unknown> {
  let serve: TaskHandler;
  try {
    serve = await handler;
  } catch (error) {
    throw startFailure(error);
  }
  return serve(task);
}

export = handle;
