// The file each worker thread starts with: CommonJS that import()s the ESM worker, then serves the
// tasks its pool posts, one at a time, posting each one's outcome back (core/worker-pool.ts). It
// stays CommonJS: Node's require() of an ES module aborts the process (a failed CHECK in
// CreateRequiredModuleFacade) when the worker is terminated while the module loads, and the bundle
// built from this file loads no ES module at all.
import type { TaskHandler, WorkerMessage, WorkerTask } from '../shared/protocol.js';

let handler: TaskHandler | undefined;
const { parentPort } = process.getBuiltinModule('node:worker_threads');
const loading: Promise<TaskHandler> = import('./lua-worker.js').then((module: { default: TaskHandler }) => (handler = module.default));

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

async function serve(task: WorkerTask): Promise<void> {
  try {
    post({ reply: await (handler ?? (await loading))(task) });
  } catch (error) {
    post({ error: error instanceof Error ? error.message : String(error) });
  }
}

// Required in a main thread (as the tests do, to see what it loads) it serves nothing.
if (parentPort) {
  // The pool hands this worker no task before its code has loaded, so it learns why it never will.
  loading.catch((error: unknown) => post({ loadFailed: error instanceof Error ? error.message : String(error) }));
  parentPort.on('message', (task: WorkerTask) => void serve(task));
} else {
  loading.catch(() => undefined);
}
