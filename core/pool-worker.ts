// One worker thread of a pool (worker-pool.ts), from the main thread's side: it starts the thread
// (or takes one the CLI started ahead, prestarted-workers.ts, and sends it its config), hands it
// one task at a time, and tells its pool what the thread says (its code loaded, its start
// over, a task's outcome) and when it is gone, with the task it was running. Threads never keep the
// process alive by themselves: the pool's deadline sweep does while tasks are in flight.
import type { MessagePort, Worker } from 'node:worker_threads';
import { EVENTS_PORT_KEY, WORKER_STARTED_KEY, type PoolMessage, type WorkerConfig, type WorkerMessage, type WorkerTask } from '../shared/protocol.js';
import { takePrestartedThread } from './prestarted-workers.js';
import { startWorkerThread } from './worker-thread.js';

/** What a worker tells its pool. */
export interface PoolWorkerEvents {
  /** Its code has loaded: events come over `port` from now on. */
  up(worker: PoolWorker, port: MessagePort): void;
  /** Its first task has made its Lua state: its start is over. */
  started(worker: PoolWorker): void;
  /** Its task ended: `reply`, or the message of what the task threw. */
  done(worker: PoolWorker, outcome: { reply: unknown } | { error: string }): void;
  /** Its thread has exited, with why (what failed in it, or its exit code); `task` is what it was running. */
  gone(worker: PoolWorker, why: string): void;
}

export class PoolWorker {
  readonly thread: Worker;
  /** Its code has loaded (it posted its event port). */
  isUp = false;
  /** Terminated by its pool: it is leaving. */
  isStopping = false;
  /** The task it is running, whoever it belongs to. */
  task: object | undefined;
  /** Holds a place at the process's start gate until its start is over. */
  startPlace = false;
  /** When it last became free (performance.now()), for its pool's idle reaping. */
  idleSince = 0;
  /** What failed inside the thread, if it failed (the 'error' before its 'exit'). */
  private failure: string | undefined;

  /** A worker with `config`: a thread started ahead (prestarted-workers.ts) if one is left, given its config first, else a new one. */
  constructor(
    config: WorkerConfig,
    private readonly events: PoolWorkerEvents,
  ) {
    const prestarted = takePrestartedThread();
    this.thread = prestarted ?? startWorkerThread(config);
    if (prestarted) prestarted.postMessage({ config } satisfies PoolMessage);
    this.thread.on('message', (message: WorkerMessage) => this.onMessage(message));
    this.thread.on('error', (error: unknown) => (this.failure ??= error instanceof Error ? error.message : String(error)));
    this.thread.once('exit', (code: number) => this.events.gone(this, this.failure ?? `worker exited with code ${code}`));
  }

  get id(): number {
    return this.thread.threadId;
  }

  /**
   * Hands the thread `task`; `owner` is what the pool finds in `task` until it ends. Returns the
   * error, and takes nothing on, when the task cannot be sent (a value structured clone refuses).
   */
  run(task: WorkerTask, owner: object): Error | undefined {
    try {
      this.thread.postMessage(task satisfies PoolMessage);
    } catch (error) {
      return error as Error;
    }
    this.task = owner;
    return undefined;
  }

  /** The thread is free. */
  idle(now: number): void {
    this.task = undefined;
    this.idleSince = now;
  }

  /** Terminates the thread; `gone` follows once it has exited. */
  stop(): void {
    if (this.isStopping) return;
    this.isStopping = true;
    void this.thread.terminate();
  }

  private onMessage(message: WorkerMessage): void {
    if ('reply' in message || 'error' in message) {
      // A worker told to stop (its code failed to load, say) is not free again: its task ends with its exit.
      if (!this.isStopping) this.events.done(this, message);
      return;
    }
    if (WORKER_STARTED_KEY in message) return this.events.started(this);
    if (EVENTS_PORT_KEY in message) {
      this.isUp = true;
      return this.events.up(this, message[EVENTS_PORT_KEY]);
    }
    this.failure = message.loadFailed;
    this.stop();
  }
}
