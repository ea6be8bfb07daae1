// A worker's task handler (started by lua-worker-entry.cts): one Lua runtime per worker thread,
// its state made at the worker's start, the config loaded by the first task. A call that ran out
// of memory retires the worker (its wasm heap never shrinks); a broken state, one that could not
// be made, or one whose config failed to load is replaced for the next task.
import type { MessagePort } from 'node:worker_threads';
import { threadId as workerThreadId } from 'node:worker_threads';
import { wrap, type Remote } from 'comlink';
import type {
  TaskHandler,
  TaskKind,
  TaskOf,
  TaskReplies,
  WorkerConfig,
  WorkerEvents,
  WorkerTask,
} from '../shared/protocol.js';
import { TaskTable } from '../shared/task-table.js';
import { LuaRuntime } from './lua-runtime.js';
import { CallChannel } from './call-channel.js';
import { LuaStateBroken } from './lua-state-errors.js';
import { lowerableByCore, lowerThisThread, threadToLower } from './thread-priority.js';

let config: WorkerConfig;
let tasks: TaskTable;
let events: Remote<WorkerEvents>;
/** The Lua state and prelude (no config yet), made as soon as the worker starts. */
let preparing: Promise<LuaRuntime> | undefined;
let starting: Promise<LuaRuntime> | undefined;
let runtime: LuaRuntime | undefined;
/** Starts this worker with its config and its event port: its priority, its task table and its Lua state; returns what serves its tasks. */
export function startWorker(workerConfig: WorkerConfig, eventsPort: MessagePort): TaskHandler {
  config = workerConfig;
  // The core lowers a task's thread once the task runs long (a CPU-bound tool must not make the
  // dashboard or a server stutter); a thread it cannot name runs lowered from the start.
  if (!lowerableByCore) lowerThisThread();
  tasks = new TaskTable(config.taskTable, config.taskTableEpochMs);
  events = wrap<WorkerEvents>(eventsPort);
  preparing = LuaRuntime.prepare(config, tasks);
  // A failure to make them reaches the first task (it awaits this), not the unhandled-rejection hook.
  preparing.catch(() => undefined);
  // What the WebAssembly runtime prints ("Cannot enlarge memory") must not reach the host's
  // terminal, where a dashboard may own the screen: it goes to the running call's log.
  const route = (...parts: unknown[]): void => runtime?.logToCall(parts.map(String).join(' '));
  Object.assign(console, { log: route, info: route, warn: route, error: route, debug: route });
  return handleTask;
}

/** The Lua runtime, ready for the task in `row`: created by the first task, which loads the config. */
async function runtimeFor(task: WorkerTask): Promise<LuaRuntime> {
  tasks.setWorker(task.row, workerThreadId);
  tasks.setThread(task.row, threadToLower());
  tasks.stamp(task.row, 'picked');
  if (!runtime) {
    // Loading the config is discovery's own work; for the other tasks it comes before their time.
    // Making the Lua state is no one's: on a loaded machine it alone can take seconds.
    runtime = await (starting ??= (preparing ??= LuaRuntime.prepare(config, tasks)).then((lua) => {
      if (task.kind === 'discover') tasks.stamp(task.row, 'started');
      return lua.load(task.row, task.kind === 'discover' ? task.budgetMs : undefined);
    }));
    // The pool lets the next worker waiting at its start gate begin.
    void events.started();
  }
  tasks.stamp(task.row, 'started');
  return runtime;
}

/** One handler per task kind, each answering with its kind's reply. */
const handlers: { [K in TaskKind]: (task: TaskOf<K>) => Promise<TaskReplies[K]> } = {
  // The worker has loaded its code and is making its Lua state: nothing more until a real task.
  warm: (task) => {
    tasks.setWorker(task.row, workerThreadId);
    tasks.stamp(task.row, 'picked');
    return Promise.resolve(null);
  },
  discover: async (task) => (await runtimeFor(task)).discoveryReport(),
  available: async (task) => (await runtimeFor(task)).available(task.context, task.row),
  render: async (task) =>
    (await runtimeFor(task)).render(task.tool, task.snapshot, task.view, task.budgetMs, task.row, task.permissions),
  run: async (task) => {
    const lua = await runtimeFor(task);
    const reply = await lua.run(task.context, task.args, task.row, new CallChannel(events, task.context.callId));
    if (reply.failure !== 'out_of_memory') return reply;
    // Its reply goes over the event channel, and the worker exits: its heap never shrinks.
    await events.retire(task.context.callId, reply);
    process.exit(0);
  },
};

const handleTask: TaskHandler = async <K extends TaskKind>(task: TaskOf<K>) => {
  const handler = handlers[task.kind] as (task: TaskOf<K>) => Promise<TaskReplies[K]>;
  try {
    return await handler(task);
  } catch (error) {
    // The pool reports the failure as a crash; nothing runs on that state again, and a state that
    // could not be made (or load the config) is tried afresh by the next task.
    if (error instanceof LuaStateBroken || !runtime) forgetRuntime();
    throw error;
  } finally {
    // The task has answered with the load's error: the next one loads the config into a fresh state.
    if (runtime?.loaded === false) forgetRuntime();
    // Before the reply: a task that has ended has no thread left to lower.
    tasks.endThread(task.row);
  }
};

function forgetRuntime(): void {
  runtime = undefined;
  starting = undefined;
  preparing = undefined;
}
