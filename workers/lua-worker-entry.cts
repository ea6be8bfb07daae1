// The file each worker thread starts with: CommonJS that import()s the ESM worker, then serves the
// tasks its pool posts, one at a time, posting each one's outcome back (core/worker-pool.ts). A
// thread started ahead of its pool (core/prestarted-workers.ts) gets its config as its first
// message instead of in `workerData`, and loads its code meanwhile. It stays CommonJS: Node's
// require() of an ES module aborts the process (a failed CHECK in CreateRequiredModuleFacade) when
// the worker is terminated while the module loads, and the bundle built from this file loads no
// ES module at all.
import type { PoolMessage, TaskHandler, WorkerConfig, WorkerMessage, WorkerTask } from '../shared/protocol.js';

type WorkerModule = { startWorker(config: WorkerConfig): TaskHandler };

const workerThreads = process.getBuiltinModule('node:worker_threads');
const { parentPort } = workerThreads;
/** The config it was started with; null when it comes as the first message. */
const workerData = workerThreads.workerData as WorkerConfig | null;
const loading: Promise<WorkerModule> = import('./lua-worker.js');
let handler: TaskHandler | undefined;
let starting: Promise<TaskHandler> | undefined;

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

/** Starts the worker with its config once its code has loaded; a failure is posted, not thrown. */
function start(config: WorkerConfig): void {
  starting = loading.then((module) => (handler = module.startWorker(config)));
  // The pool hands this worker no task it can run before then, so it learns why it never will.
  starting.catch((error: unknown) => post({ loadFailed: error instanceof Error ? error.message : String(error) }));
}

async function serve(task: WorkerTask): Promise<void> {
  try {
    post({ reply: await (handler ?? (await starting!))(task) });
  } catch (error) {
    post({ error: error instanceof Error ? error.message : String(error) });
  }
}

// Required in a main thread (as the tests do, to see what it loads) it serves nothing.
if (parentPort) {
  if (workerData !== null) start(workerData);
  parentPort.on('message', (message: PoolMessage) => {
    if ('config' in message) start(message.config);
    else void serve(message);
  });
}
loading.catch(() => undefined);
