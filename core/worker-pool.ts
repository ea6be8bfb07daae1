// A piscina pool of Lua workers for one role: a module's `run` calls, or a generation's inspect
// work (discovery, `available`). One task per worker at a time; abort terminates the worker.
import type { TransferListItem } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { WorkerConfig, WorkerTask } from './protocol.js';

const WORKER_ENTRY = new URL('../workers/lua-worker.js', import.meta.url).href;

export interface WorkerPoolOptions {
  config: WorkerConfig;
  maxThreads: number;
  /** How long an idle worker lives before piscina reaps it. */
  idleTimeoutMs: number;
  /** Calls that may wait for a worker; past it a call is refused as busy. */
  maxQueue: number;
}

export interface PoolStats {
  alive: number;
  busy: number;
  queued: number;
}

export class WorkerPool {
  private readonly piscina: Piscina<WorkerTask, unknown>;
  private running = 0;

  constructor(options: WorkerPoolOptions) {
    this.piscina = new Piscina({
      filename: WORKER_ENTRY,
      workerData: options.config,
      minThreads: 0,
      maxThreads: options.maxThreads,
      idleTimeout: options.idleTimeoutMs,
      maxQueue: options.maxQueue,
      concurrentTasksPerWorker: 1,
      // The default 'sync' parks an idle worker in Atomics.wait, and its comlink port goes deaf.
      atomics: 'disabled',
    });
    // A worker that dies between tasks is replaced on demand; without a listener the
    // EventEmitter would throw the 'error' into the host.
    this.piscina.on('error', () => undefined);
  }

  get queueFull(): boolean {
    return this.piscina.queueSize >= this.piscina.options.maxQueue;
  }

  async run<R>(task: WorkerTask, signal: AbortSignal, transferList: TransferListItem[] = []): Promise<R> {
    this.running++;
    try {
      return (await this.piscina.run(task, { signal, transferList })) as R;
    } finally {
      this.running--;
    }
  }

  stats(): PoolStats {
    const queued = this.piscina.queueSize;
    return { alive: this.piscina.threads.length, busy: this.running - queued, queued };
  }

  async close(): Promise<void> {
    await this.piscina.destroy();
  }
}
