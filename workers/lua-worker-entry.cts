// The file each worker thread starts with: CommonJS that import()s the ESM worker, then serves the
// tasks its pool posts, one at a time and in order (several may wait in its port), posting each
// one's outcome back (core/worker-pool.ts); a task the pool withdrew before this worker claimed it
// is skipped without a word. A worker whose tasks come back to back stays awake a moment for the
// next (see AWAKE_FOR_NEXT_MS). A thread started ahead of its pool (core/prestarted-workers.ts)
// gets its config as its first message instead of in `workerData`, and loads its code meanwhile.
// It stays CommonJS: Node's require() of an ES module aborts the process (a failed CHECK in
// CreateRequiredModuleFacade) when the worker is terminated while the module loads, and the bundle
// built from this file loads no ES module at all.
import type { PoolMessage, TaskServer, WorkerConfig, WorkerMessage, WorkerTask } from '../shared/protocol.js';

type WorkerModule = { startWorker(config: WorkerConfig): TaskServer };

/**
 * How long a worker whose tasks come back to back (see BACK_TO_BACK_MS) waits awake for the next,
 * polling its port, before it sleeps. Waking a sleeping thread costs tens of µs on both sides on
 * some machines (a virtual CPU's wake-up); a client calling tool after tool sends the next within
 * this. See docs/decisions.md, "A worker stays awake between calls that come back to back".
 */
const AWAKE_FOR_NEXT_MS = 0.5;
/** A task that came within this long of the worker running out of tasks is one of a run of calls: the worker waits awake after it. */
const BACK_TO_BACK_MS = 1;

const workerThreads = process.getBuiltinModule('node:worker_threads');
const { parentPort } = workerThreads;
/** The config it was started with; null when it comes as the first message. */
const workerData = workerThreads.workerData as WorkerConfig | null;
const loading: Promise<WorkerModule> = import('./lua-worker.js');
let server: TaskServer | undefined;
let starting: Promise<TaskServer> | undefined;
/** Tasks received and not yet served, in order. */
const waiting: WorkerTask[] = [];
let serving = false;
/** When it last ran out of tasks (performance.now()), and whether the task after that came within BACK_TO_BACK_MS. */
let idleSince = -Infinity;
let backToBack = false;

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

/** Starts the worker with its config once its code has loaded; a failure is posted, not thrown. */
function start(config: WorkerConfig): void {
  starting = loading.then((module) => (server = module.startWorker(config)));
  // The pool hands this worker no task it can run before then, so it learns why it never will.
  starting.catch((error: unknown) => post({ loadFailed: error instanceof Error ? error.message : String(error) }));
}

async function serve(task: WorkerTask): Promise<void> {
  let began = performance.now();
  try {
    const tasks = server ?? (await starting!);
    if (!tasks.claim(task)) return;
    began = performance.now();
    const reply = await tasks.handle(task);
    post({ reply, tookMs: performance.now() - began });
  } catch (error) {
    post({ error: error instanceof Error ? error.message : String(error), tookMs: performance.now() - began });
  }
}

function receive(message: PoolMessage): void {
  if ('config' in message) return start(message.config);
  if (!serving) backToBack = performance.now() - idleSince < BACK_TO_BACK_MS;
  waiting.push(message);
  if (!serving) void serveWaiting();
}

/** The next message, if one comes within AWAKE_FOR_NEXT_MS (polled: the thread does not sleep). */
function awaitNext(): PoolMessage | undefined {
  const until = performance.now() + AWAKE_FOR_NEXT_MS;
  do {
    const next = workerThreads.receiveMessageOnPort(parentPort!) as { message: PoolMessage } | undefined;
    if (next) return next.message;
  } while (performance.now() < until);
  return undefined;
}

/** Serves the waiting tasks one after another; a task that arrives meanwhile joins the line. */
async function serveWaiting(): Promise<void> {
  serving = true;
  for (;;) {
    for (let task = waiting.shift(); task !== undefined; task = waiting.shift()) await serve(task);
    const next = backToBack ? awaitNext() : undefined;
    if (next === undefined) break;
    if ('config' in next) start(next.config);
    else waiting.push(next);
  }
  serving = false;
  idleSince = performance.now();
}

// Required in a main thread (as the tests do, to see what it loads) it serves nothing.
if (parentPort) {
  if (workerData !== null) start(workerData);
  parentPort.on('message', receive);
}
loading.catch(() => undefined);
