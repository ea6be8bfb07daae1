// The file each worker thread starts with: CommonJS that import()s the ESM worker, then serves the
// tasks its pool posts, one at a time and in order (several may wait in its port), posting each
// one's outcome back (core/worker-pool.ts); a task the pool withdrew before this worker claimed it
// is skipped without a word. A worker whose tasks come back to back stays awake a moment for the
// next (see awake-rule.cts). A thread started ahead of its pool (core/prestarted-workers.ts)
// gets its config as its first message instead of in `workerData`, and loads its code meanwhile.
// It stays CommonJS: Node's require() of an ES module aborts the process (a failed CHECK in
// CreateRequiredModuleFacade) when the worker is terminated while the module loads, and the bundle
// built from this file loads no ES module at all.
import type { PoolMessage, TaskServer, WorkerConfig, WorkerMessage, WorkerReply, WorkerTask } from '../shared/protocol.js';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- how a CommonJS file imports another (verbatimModuleSyntax); the bundle inlines it
import AwakeRule = require('./awake-rule.cjs');

type WorkerModule = { startWorker(config: WorkerConfig): TaskServer };

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
/** Whether it waits awake for its next task once it runs out. */
const awake = new AwakeRule();

function post(message: WorkerMessage): void {
  parentPort!.postMessage(message);
}

/** Starts the worker with its config once its code has loaded; a failure is posted, not thrown. */
function start(config: WorkerConfig): void {
  starting = loading.then((module) => (server = module.startWorker(config)));
  // The pool hands this worker no task it can run before then, so it learns why it never will.
  starting.catch((error: unknown) => post({ loadFailed: error instanceof Error ? error.message : String(error) }));
}

/** Serves `task`, at once when its handler answers at once (a warm call whose Lua never awaits), else once it has. */
function serve(task: WorkerTask): Promise<void> | undefined {
  if (server === undefined) return serveOnceStarted(task);
  if (!server.claim(task)) return undefined;
  const began = performance.now();
  let reply: WorkerReply | Promise<WorkerReply>;
  try {
    reply = server.handle(task);
  } catch (error) {
    return postFailure(error, began);
  }
  if (reply instanceof Promise) {
    return reply.then(
      (value) => postReply(value, began),
      (error: unknown) => postFailure(error, began),
    );
  }
  return postReply(reply, began);
}

/** Posts a task's reply; one that cannot be sent (a value structured clone refuses) is answered as the task's failure. */
function postReply(reply: WorkerReply, began: number): undefined {
  try {
    post({ reply, tookMs: performance.now() - began });
  } catch (error) {
    postFailure(error, began);
  }
  return undefined;
}

/** Serves a task that came before the worker's code and config were ready. */
async function serveOnceStarted(task: WorkerTask): Promise<void> {
  const began = performance.now();
  try {
    await starting;
  } catch (error) {
    return postFailure(error, began);
  }
  // The pool sends a worker its config before any task; one that came without is answered, not waited for.
  if (server === undefined) return postFailure(new Error('the worker was given a task before its config'), began);
  return serve(task);
}

function postFailure(error: unknown, began: number): undefined {
  post({ error: error instanceof Error ? error.message : String(error), tookMs: performance.now() - began });
  return undefined;
}

/** A message from the pool: its config, or a task, which joins the line. */
function receive(message: PoolMessage): void {
  if ('config' in message) return start(message.config);
  if (!serving) awake.woken(performance.now());
  waiting.push(message);
  if (!serving) void serveWaiting();
}

/**
 * Polls of an empty port between two looks at the clock while waiting awake: a poll that finds
 * nothing allocates nothing, a look at the clock allocates a number, so looking at each poll (some
 * 40 ns apart) filled a worker's young generation several times a second just by waiting, and each
 * collection moved objects on towards the old generation. 64 polls take a few µs.
 */
const POLLS_PER_CLOCK_LOOK = 64;

/** The next message, if one comes within `awakeMs` (polled: the thread does not sleep). */
function awaitNext(awakeMs: number): PoolMessage | undefined {
  const until = performance.now() + awakeMs;
  for (let polls = 1; ; polls++) {
    const next = workerThreads.receiveMessageOnPort(parentPort!) as { message: PoolMessage } | undefined;
    if (next) return next.message;
    if (polls % POLLS_PER_CLOCK_LOOK === 0 && performance.now() >= until) return undefined;
  }
}

/** awaitNext, told to the host while it lasts (it then waits awake for this worker's answers). */
function awaitNextAwake(awakeMs: number): PoolMessage | undefined {
  server?.waitingAwake(true);
  const next = awaitNext(awakeMs);
  server?.waitingAwake(false);
  return next;
}

/** Serves the waiting tasks one after another; a task that arrives meanwhile joins the line. */
async function serveWaiting(): Promise<void> {
  serving = true;
  for (;;) {
    for (let task = waiting.shift(); task !== undefined; task = waiting.shift()) {
      const served = serve(task);
      if (served !== undefined) await served;
    }
    const awakeMs = awake.ranOut(performance.now(), server?.spareForWaiting() ?? false);
    const next = awakeMs > 0 ? awaitNextAwake(awakeMs) : undefined;
    if (next === undefined) break;
    if ('config' in next) start(next.config);
    else waiting.push(next);
  }
  serving = false;
}

// Required in a main thread (as the tests do, to see what it loads) it serves nothing.
if (parentPort) {
  if (workerData !== null) start(workerData);
  parentPort.on('message', receive);
}
loading.catch(() => undefined);
