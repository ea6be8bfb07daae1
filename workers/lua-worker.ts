// The piscina worker entry: one Lua runtime per worker thread, created on the first task (it
// evaluates the whole config and runs discovery), then one task at a time. At startup the
// worker opens its event channel and hands one end to the main thread. A call that ran out of
// memory leaves a grown wasm heap (it never shrinks), so that worker retires: it hands the reply
// over the event channel, waits until the host has it, and exits; the next call gets a new one.
// A task whose Lua state broke (a trap) fails, and the next task starts from a fresh state.
import { setPriority } from 'node:os';
import { MessageChannel, parentPort, workerData } from 'node:worker_threads';
import { wrap } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { EVENTS_PORT_KEY, type WorkerConfig, type WorkerEvents, type WorkerReply, type WorkerTask } from '../core/protocol.js';
import { TaskTable } from './child-pids.js';
import { captureConsole } from './console-capture.js';
import { LuaRuntime } from './lua-runtime.js';
import { CallChannel } from './call-channel.js';
import { LuaStateBroken } from './lua-state-errors.js';

/** Workers run below the host, so a CPU-bound tool never makes the dashboard or a server stutter. */
const WORKER_NICE = 10;

// On Linux the nice value belongs to the thread, so this lowers this worker alone.
if (process.platform === 'linux') setPriority(0, WORKER_NICE);

const config = workerData as WorkerConfig;
const tasks = new TaskTable(config.pids, config.pidEpochMs);
const channel = new MessageChannel();
const events = wrap<WorkerEvents>(nodeEndpoint(channel.port1));
// Unreferenced so that an idle worker can still be reaped.
channel.port1.unref();
parentPort!.postMessage({ [EVENTS_PORT_KEY]: channel.port2 }, [channel.port2]);

let starting: Promise<LuaRuntime> | undefined;
let runtime: LuaRuntime | undefined;
captureConsole((text) => runtime?.logToCall(text));

export default async function handleTask(task: WorkerTask): Promise<WorkerReply> {
  if (task.kind === 'noop') return null;
  try {
    return await runTask(task);
  } catch (error) {
    // The pool reports the failure as a crash; nothing runs on that state again.
    if (error instanceof LuaStateBroken) {
      runtime = undefined;
      starting = undefined;
    }
    throw error;
  }
}

async function runTask(task: Exclude<WorkerTask, { kind: 'noop' }>): Promise<WorkerReply> {
  tasks.stamp(task.pidRow, 'picked');
  // Loading the config is discovery's own work; for the other tasks it comes before their time.
  if (task.kind === 'discover') tasks.stamp(task.pidRow, 'started');
  const lua = (runtime ??= await (starting ??= LuaRuntime.create(config, tasks, task.pidRow)));
  tasks.stamp(task.pidRow, 'started');
  switch (task.kind) {
    case 'discover':
      return lua.discoveryReport();
    case 'available':
      return lua.available(task.context, task.pidRow);
    case 'render':
      return lua.render(task.tool, task.snapshot, task.view, task.budgetMs, task.pidRow);
    case 'run': {
      const reply = await lua.run(task.context, task.args, task.pidRow, new CallChannel(events, task.context.callId));
      if (reply.failure === 'out_of_memory') {
        await events.retire(task.context.callId, reply);
        process.exit(0);
      }
      return reply;
    }
  }
}
