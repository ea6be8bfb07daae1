// Runs one worker task under a wall-clock limit and an optional cancel signal. Either ends the
// task by terminating its worker (piscina's abort); then every process group it started is killed.
import type { TransferListItem } from 'node:worker_threads';
import type { WorkerTask } from './protocol.js';
import { killProcessGroups } from './process-groups.js';
import type { WorkerPool } from './worker-pool.js';

export type TaskOutcome<R> =
  | { kind: 'done'; value: R }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  | { kind: 'crashed'; message: string };

export interface BoundedTaskOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  transferList?: TransferListItem[];
}

export async function runBounded<R>(pool: WorkerPool, task: WorkerTask, options: BoundedTaskOptions): Promise<TaskOutcome<R>> {
  const controller = new AbortController();
  let stopped: 'timeout' | 'cancelled' | undefined;
  const stop = (why: 'timeout' | 'cancelled'): void => {
    stopped ??= why;
    controller.abort(why);
  };
  const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
  const onCancel = (): void => stop('cancelled');
  if (options.signal?.aborted) onCancel();
  options.signal?.addEventListener('abort', onCancel, { once: true });
  try {
    return { kind: 'done', value: await pool.run<R>(task, controller.signal, options.transferList) };
  } catch (error) {
    killProcessGroups(task.pids);
    if (stopped) return { kind: stopped };
    return { kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCancel);
  }
}
