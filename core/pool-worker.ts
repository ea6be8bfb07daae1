// One worker thread of a pool (worker-pool.ts), from the main thread's side: it starts the thread
// (or takes one the CLI started ahead, prestarted-workers.ts, and sends it its config), hands it
// tasks — several may wait in its port, run in order — and tells its pool what the thread says
// (its code loaded, its start over, a task's outcome) and when it is gone, with the tasks it held.
// Threads never keep the process alive by themselves: the pool's deadline sweep does while tasks
// are in flight.
import type { MessagePort, Worker } from 'node:worker_threads';
import { EVENTS_PORT_KEY, WORKER_STARTED_KEY, type PoolMessage, type TaskAnswer, type WorkerConfig, type WorkerMessage, type WorkerTask } from '../shared/protocol.js';
import { DOUBLE_ZERO } from './double-zero.js';
import { takePrestartedThread } from './prestarted-workers.js';
import { WorkerStall } from './worker-stall.js';
import { startWorkerThread } from './worker-thread.js';

/** What a worker tells its pool. */
export interface PoolWorkerEvents {
  /** Its code has loaded: events come over `port` from now on. */
  up(worker: PoolWorker, port: MessagePort): void;
  /** Its first task has made its Lua state: its start is over. */
  started(worker: PoolWorker): void;
  /** Its first task ended (it is taken off `tasks`): `reply`, or the message of what the task threw. */
  done(worker: PoolWorker, owner: object, answer: TaskAnswer): void;
  /** Its thread has exited, with why (what failed in it, or its exit code); `tasks` holds what it was handed and had not answered. */
  gone(worker: PoolWorker, why: string): void;
}

export class PoolWorker {
  readonly thread: Worker;
  /** Its code has loaded (it posted its event port). */
  isUp = false;
  /** Terminated by its pool: it is leaving. */
  isStopping = false;
  /** The owners of the tasks it was handed and has not answered, in the order it runs them (the first is running, or next). */
  readonly tasks: object[] = [];
  /** Holds a place at the process's start gate until its start is over. */
  startPlace = false;
  /** When it last became free (performance.now()), for its pool's idle reaping. */
  idleSince = DOUBLE_ZERO;
  /** When its first task began, as far as the main thread knows (performance.now()): handed to it idle, or its previous task answered. */
  firstTaskSince = DOUBLE_ZERO;
  /** What its recent tasks took (ms, a running average, kept by its pool). */
  taskCostMs = DOUBLE_ZERO;
  /**
   * How many of its recent answers came over ANSWER_WAIT_MS after it was handed the task or gave
   * the answer before (a running share, 0 to 1, kept by its pool): whether waiting awake for its
   * next answer would wait in vain.
   */
  lateAnswers = DOUBLE_ZERO;
  /** Counted among the host's workers holding tasks (CpuSlots.countBusyWorker). */
  countedBusy = false;
  /** It has answered a task: its start (loading the config) is behind it. */
  hasAnswered = false;
  /** Its thread's Linux thread id, once it is up (0 where unknown). */
  threadId = 0;
  /** Whether it is held up by its task when its pool has not heard from it for a while. */
  readonly stall = new WorkerStall();
  /** The word its thread sets to 1 while it waits awake for its next task, once it is up. */
  private awakeWord: Int32Array | undefined;
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

  /** Its thread waits awake for its next task: running, so a task handed to it now is taken at once. */
  get isWaitingAwake(): boolean {
    return this.awakeWord !== undefined && Atomics.load(this.awakeWord, 0) === 1;
  }

  /** The task it runs now or next, if any. */
  get task(): object | undefined {
    return this.tasks[0];
  }

  /**
   * Hands the thread `task`, after those it holds; `owner` is what the pool finds in `tasks` until
   * it is answered or taken back. Returns the error, and takes nothing on, when the task cannot be
   * sent (a value structured clone refuses).
   */
  run(task: WorkerTask, owner: object): Error | undefined {
    try {
      this.thread.postMessage(task satisfies PoolMessage);
    } catch (error) {
      return error as Error;
    }
    this.tasks.push(owner);
    return undefined;
  }

  /** Takes back a task the thread had not claimed (the pool withdrew it in the task table). */
  takeBack(owner: object): void {
    const index = this.tasks.indexOf(owner);
    if (index >= 0) this.tasks.splice(index, 1);
  }

  /** The thread is free. */
  idle(now: number): void {
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
      // A worker told to stop (its code failed to load, say) is not free again: its tasks end with its exit.
      if (!this.isStopping && this.tasks.length > 0) this.events.done(this, this.tasks.shift()!, message);
      return;
    }
    if (WORKER_STARTED_KEY in message) return this.events.started(this);
    if (EVENTS_PORT_KEY in message) {
      this.isUp = true;
      this.threadId = message.threadId;
      this.awakeWord = message.waitingAwake;
      return this.events.up(this, message[EVENTS_PORT_KEY]);
    }
    this.failure = message.loadFailed;
    this.stop();
  }
}
