// A worker's task handler (lua-worker-entry.cts starts it with the worker's config and serves it):
// one Lua runtime per worker thread. The Lua state and prelude are made as soon as the worker
// starts; the first task evaluates the whole config and runs discovery; then one task at a time,
// each claimed in the task table first (one the core withdrew is skipped).
// At start the worker opens its event channel and hands one end to the main thread. A call that
// ran out of memory leaves a grown wasm heap (it never shrinks), so that worker retires: it hands
// the reply over the event channel, waits until the host has it, and exits; the next call gets a
// new one. A task whose Lua state broke (a trap) fails, and the next task starts from a fresh state.
import { MessageChannel, parentPort } from 'node:worker_threads';
import { wrap, type Remote } from 'comlink/dist/esm/comlink.mjs';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { EVENTS_PORT_KEY, WORKER_STARTED_KEY, type TaskHandler, type TaskKind, type TaskServer, type TaskOf, type TaskReplies, type RunReply, type WorkerConfig, type WorkerEvents, type WorkerTask } from '../shared/protocol.js';
import { CpuSlots } from '../shared/cpu-slots.js';
import { TaskTable } from '../shared/task-table.js';
import { captureConsole } from './console-capture.js';
import { LuaRuntime } from './lua-runtime.js';
import { CallChannel } from './call-channel.js';
import { LuaStateBroken } from './lua-state-errors.js';
import { lowerableByCore, lowerThisThread, thisThreadId, threadToLower } from './thread-priority.js';

let config: WorkerConfig;
let tasks: TaskTable;
let events: Remote<WorkerEvents>;
/**
 * The Lua state and prelude, which do not depend on the config, made as soon as the worker has
 * started: a warmed worker (started before it has a task) has them ready for its first task, and a
 * worker started for a task makes them while that task's message is on its way.
 */
let preparing: Promise<LuaRuntime> | undefined;
let starting: Promise<LuaRuntime> | undefined;
let runtime: LuaRuntime | undefined;
/**
 * The last call's event channel, kept until the next call's replaces it. V8 holds the shape of a
 * fully built object of a class only through the objects that have it: with no channel alive when
 * the worker's first full collection came, it dropped that shape, and with it the optimized code
 * of the worker's call path, which it then compiled again inside the first burst of calls (about
 * 25 ms of CPU; see docs/decisions.md, "The first burst of calls keeps the pool's optimized code").
 */
let lastChannel: CallChannel | undefined;

/** Starts this worker with its config: its priority, its task table, its event channel and its Lua state; returns what serves its tasks. */
export function startWorker(workerConfig: WorkerConfig): TaskServer {
  config = workerConfig;
  // The core lowers a task's thread once the task runs long (a CPU-bound tool must not make the
  // dashboard or a server stutter); a thread it cannot name, or one of a burst of starts, runs
  // lowered from the start.
  if (!lowerableByCore || config.startLowered) lowerThisThread();
  tasks = new TaskTable(config.taskTable, config.taskTableEpochMs);
  const channel = new MessageChannel();
  events = wrap<WorkerEvents>(nodeEndpoint(channel.port1));
  // Unreferenced so that an idle worker can still be reaped.
  channel.port1.unref();
  // 1 while the worker waits awake for its next task: the host then waits awake for its answers.
  const waitingAwake = new Int32Array(new SharedArrayBuffer(4));
  parentPort!.postMessage({ [EVENTS_PORT_KEY]: channel.port2, threadId: thisThreadId(), waitingAwake }, [channel.port2]);
  preparing = LuaRuntime.prepare(config, tasks);
  // A failure to make them reaches the first task (it awaits this), not the unhandled-rejection hook.
  preparing.catch(() => undefined);
  captureConsole((text) => runtime?.logToCall(text));
  const slots = new CpuSlots(config.cpuSlots);
  return {
    claim: (task) => tasks.claim(task.row, task.ticket),
    handle: handleTask,
    spareForWaiting: () => slots.spareForWaiting(),
    waitingAwake: (awake) => void Atomics.store(waitingAwake, 0, awake ? 1 : 0),
  };
}

/**
 * The Lua runtime, ready for the task in `row`: created by the first task, which loads the config;
 * a warm worker's runtime is answered at once (no promise, no turn of the event loop).
 */
function runtimeFor(task: WorkerTask): LuaRuntime | Promise<LuaRuntime> {
  tasks.setThread(task.row, threadToLower());
  tasks.stamp(task.row, 'picked');
  if (!runtime) return startRuntime(task);
  tasks.stamp(task.row, 'started');
  return runtime;
}

async function startRuntime(task: WorkerTask): Promise<LuaRuntime> {
  // Loading the config is discovery's own work; for the other tasks it comes before their time.
  if (task.kind === 'discover') tasks.stamp(task.row, 'started');
  runtime = await (starting ??= (preparing ??= LuaRuntime.prepare(config, tasks)).then((lua) => lua.load(task.row)));
  tasks.stamp(task.row, 'started');
  // The pool lets the next worker waiting at its start gate begin.
  parentPort!.postMessage({ [WORKER_STARTED_KEY]: task.row });
  return runtime;
}

/** One handler per task kind, each answering with its kind's reply (at once when a warm call's Lua never awaits). */
const handlers: { [K in TaskKind]: (task: TaskOf<K>) => TaskReplies[K] | Promise<TaskReplies[K]> } = {
  discover: async (task) => (await runtimeFor(task)).discoveryReport(),
  available: async (task) => (await runtimeFor(task)).available(task.context, task.row),
  render: async (task) => (await runtimeFor(task)).render(task.tool, task.snapshot, task.view, task.budgetMs, task.row),
  run: (task) => {
    const ready = runtimeFor(task);
    return ready instanceof LuaRuntime ? runOn(ready, task) : ready.then((lua) => runOn(lua, task));
  },
};

function runOn(lua: LuaRuntime, task: TaskOf<'run'>): RunReply | Promise<RunReply> {
  lastChannel = new CallChannel(events, task.context.callId);
  const reply = lua.run(task.context, task.args, task.row, lastChannel);
  return reply instanceof Promise ? reply.then((ended) => retireIfOutOfMemory(task, ended)) : retireIfOutOfMemory(task, reply);
}

/** A call that ran out of memory hands its reply over the event channel, and the worker exits (its heap never shrinks). */
function retireIfOutOfMemory(task: TaskOf<'run'>, reply: RunReply): RunReply | Promise<RunReply> {
  if (reply.failure !== 'out_of_memory') return reply;
  return events.retire(task.context.callId, reply).then(() => process.exit(0));
}

/**
 * Runs a task; a warm call whose Lua never awaits is answered without a promise (five promises
 * and their turns of the microtask queue a call, before, and a third of what the worker allocated).
 */
const handleTask: TaskHandler = <K extends TaskKind>(task: TaskOf<K>) => {
  const handler = handlers[task.kind] as (task: TaskOf<K>) => TaskReplies[K] | Promise<TaskReplies[K]>;
  let answer: TaskReplies[K] | Promise<TaskReplies[K]>;
  try {
    answer = handler(task);
  } catch (error) {
    throw taskEnded(task, error);
  }
  if (!(answer instanceof Promise)) {
    taskEnded(task);
    return answer;
  }
  return answer.then(
    (reply) => (taskEnded(task), reply),
    (error: unknown) => {
      throw taskEnded(task, error);
    },
  );
};

/** A task has ended, having thrown `error` if given (returned, to be thrown again). */
function taskEnded(task: WorkerTask, error?: unknown): unknown {
  // The pool reports the failure as a crash; nothing runs on that state again.
  if (error instanceof LuaStateBroken) {
    runtime = undefined;
    starting = undefined;
    preparing = undefined;
  }
  // Before the reply: a task that has ended has no thread left to lower, and its worker is not held up by it.
  tasks.endThread(task.row);
  return error;
}

