// The piscina worker entry: one Lua runtime per worker thread, created on the first task (it
// evaluates the whole config and runs discovery), then one task at a time.
import { workerData } from 'node:worker_threads';
import type { AvailableReply, DiscoveryReport, RunReply, WorkerConfig, WorkerTask } from '../core/protocol.js';
import { LuaRuntime } from './lua-runtime.js';
import { SnapshotChannel } from './snapshot-channel.js';

const config = workerData as WorkerConfig;
let runtime: Promise<LuaRuntime> | undefined;

export default async function handleTask(task: WorkerTask): Promise<DiscoveryReport | RunReply | AvailableReply> {
  runtime ??= LuaRuntime.create(config, task.pids);
  const lua = await runtime;
  switch (task.kind) {
    case 'discover':
      return lua.discoveryReport();
    case 'available':
      return lua.available(task.context, task.pids);
    case 'run': {
      const channel = new SnapshotChannel(task.events);
      try {
        return await lua.run(task.context, task.args, task.pids, channel);
      } finally {
        channel.close();
      }
    }
  }
}
