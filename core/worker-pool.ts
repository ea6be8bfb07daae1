// A piscina pool of Lua workers for one role: a module's `run` calls, or a generation's inspect
// work (discovery, `available`). One task per worker at a time, each under a wall-clock limit and
// cancel signals; ending a task early terminates its worker (piscina's abort); however a task
// ends, every process it started is ended. A task that needs a new worker first waits, untimed,
// for a place at the process's start gate. Each worker's event port is exposed once; events
// route by call id.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { MessagePort } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { Piscina } from 'piscina';
import type { CpuSlots } from '../shared/cpu-slots.js';
import {
  EVENTS_PORT_KEY,
  WORKER_STARTED_KEY,
  type CallEvents,
  type PoolTask,
  type RunReply,
  type TaskReplies,
  type WorkerConfig,
  type WorkerEvents,
  type WorkerReply,
  type WorkerTask,
} from '../shared/protocol.js';
import type { CancelSignal } from './call-result.js';
import { CallStop } from './call-stop.js';
import { StartGate } from './start-gate.js';
import { TaskRows } from './task-rows.js';
import { lowerLongTask } from './thread-priority.js';
import { STUCK_AFTER_MS, type ThreadWatch } from './thread-watch.js';

// A path, not a file: URL: piscina converts a URL back to a path on every task. A CommonJS file
// that import()s the ESM worker: piscina require()s its filename first, and Node's require() of
// an ES module aborts the whole process when the worker is terminated mid-load (see
// docs/decisions.md, "Workers load through import()").
export const WORKER_ENTRY = fileURLToPath(new URL('../workers/lua-worker-entry.cjs', import.meta.url));
/** How long closing waits for its workers to exit; a thread stuck in a system call is left behind. */
const CLOSE_WAIT_MS = STUCK_AFTER_MS;
/** Workers that may fail to start, none having come up, before the tasks waiting for one fail. */
const START_FAILURE_LIMIT = 3;
/**
 * A worker's V8 young generation. Lua's heap lives in wasm memory, so a worker's JS allocates
 * little; V8's default lets the young generation grow to several MB per worker that stay
 * committed: 2 MB is about 2 MB less RSS per module, at a price when many start at once (see
 * docs/decisions.md, "Start-up and worker memory").
 */
const WORKER_YOUNG_GENERATION_MB = 2;
/**
 * Workers of the whole process that may be starting at once (see start-gate.ts): a few more than
 * the CPUs, for starts that wait on a file or a command. Process-wide, not per host: what starts
 * contend for — the CPUs and V8's GC threads — every isolate of the process shares.
 */
export const WORKER_START_SLOTS = availableParallelism() + 2;
const WORKER_STARTS = new StartGate(WORKER_START_SLOTS);

export interface WorkerPoolOptions {
  config: Omit<WorkerConfig, 'taskTable' | 'taskTableEpochMs' | 'cpuSlots'>;
  /** The host's CPU slots: the pool gives up the turn of a task whose worker it terminated. */
  cpuSlots: CpuSlots;
  maxThreads: number;
  /** How long an idle worker lives before piscina reaps it. */
  idleTimeoutMs: number;
  /** Tasks that may wait for a worker; past it a task is refused as busy. */
  maxQueue: number;
  /** The host's count of threads told to stop that have not. */
  threads: ThreadWatch;
}

export interface PoolStats {
  alive: number;
  busy: number;
  queued: number;
}

export type TaskOutcome<R> =
  | { kind: 'done'; value: R }
  | { kind: 'timeout' }
  | { kind: 'cancelled' }
  | { kind: 'busy' }
  | { kind: 'crashed'; message: string };

export interface TaskLimits {
  /** Wall-clock limit counted from when the task's work begins (waiting for a worker is free). */
  timeoutMs: number;
  /** What a cold worker may spend loading the config before the task's own time starts. */
  coldStartMs?: number;
  /** Cancels the task. */
  signal?: CancelSignal | undefined;
}

/** How often running tasks' deadlines are checked: a timeout ends at most this much late. */
const DEADLINE_SWEEP_MS = 50;

/**
 * The one place a reply that crossed the thread boundary takes its type: the worker's handler is a
 * TaskHandler (shared/protocol.ts), checked to answer a task of kind K with TaskReplies[K].
 */
function replyTo<T extends PoolTask>(_task: T, reply: WorkerReply): TaskReplies[T['kind']] {
  return reply as TaskReplies[T['kind']];
}

/**
 * One task in flight, and how it is stopped early: the abort signal piscina listens to (piscina
 * needs only `aborted`, `reason` and one listener; see call-stop.ts), and why it was stopped.
 */
class TaskStop extends CallStop {
  why: 'timeout' | 'cancelled' | undefined;
  /** Why the task failed without running: its worker could not start. */
  failure: string | undefined;
  /** Handed to piscina (not waiting at the start gate). */
  submitted = false;
  /** Holds a place at the start gate until its worker has started. */
  startPlace = false;

  constructor(
    readonly row: number,
    readonly limits: TaskLimits,
  ) {
    super();
  }

  get reason(): string | undefined {
    return this.why;
  }

  /** The caller's signal aborted (the task listens to it as an EventListenerObject: no closure per task). */
  handleEvent(): void {
    this.stop('cancelled');
  }

  stop(why: 'timeout' | 'cancelled'): void {
    if (this.aborted) return;
    this.why = why;
    this.abort();
  }

  fail(failure: string): void {
    if (this.aborted) return;
    this.failure = failure;
    this.abort();
  }
}

export class WorkerPool {
  private readonly piscina: Piscina<WorkerTask, WorkerReply>;
  private readonly rows: TaskRows;
  private readonly cpuSlots: CpuSlots;
  private readonly listeners = new Map<string, CallEvents>();
  private readonly active = new Set<TaskStop>();
  private deadlineSweep: NodeJS.Timeout | undefined;
  /** Replies handed over by workers that exited after their task (see WorkerEvents.retire). */
  private readonly retired = new Map<string, RunReply>();
  /** Whether any worker of this pool has loaded its code (it sends its event port then). */
  private workerCameUp = false;
  private settleCameUp: () => void = () => undefined;
  /** Settles once a worker of this pool has loaded its code: piscina hands it a task next. */
  readonly cameUp = new Promise<void>((resolve) => (this.settleCameUp = resolve));
  /** Workers that failed before any came up (their code cannot load, say). */
  private startFailures = 0;
  /** Tasks handed to piscina and not yet settled. */
  private submitted = 0;
  /** Workers that have come up and not gone (piscina's thread ids). */
  private readonly readyWorkers = new Set<number>();
  private readonly maxThreads: number;

  constructor(options: WorkerPoolOptions) {
    this.rows = new TaskRows(options.maxThreads + options.maxQueue);
    this.cpuSlots = options.cpuSlots;
    this.maxThreads = options.maxThreads;
    this.piscina = new Piscina({
      filename: WORKER_ENTRY,
      workerData: { ...options.config, taskTable: this.rows.table.buffer, taskTableEpochMs: this.rows.table.epochMs, cpuSlots: options.cpuSlots.buffer } satisfies WorkerConfig,
      minThreads: 0,
      maxThreads: options.maxThreads,
      idleTimeout: options.idleTimeoutMs,
      maxQueue: options.maxQueue,
      concurrentTasksPerWorker: 1,
      // The default 'sync' parks an idle worker in Atomics.wait; moonpool keeps workers' event
      // loops running (their event ports, child processes) and pays a little latency for it.
      atomics: 'disabled',
      recordTiming: false,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    // A worker that dies between tasks is replaced on demand; without a listener the
    // EventEmitter would throw the 'error' into the host.
    this.piscina.on('error', (error: unknown) => this.onWorkerError(error));
    const { threads } = options;
    this.piscina.on('workerCreate', (worker: { id: number }) => {
      this.readyWorkers.add(worker.id);
      for (const thread of this.piscina.threads) threads.started(thread);
    });
    // A worker gone — after an abort, a crash, or while still starting — may leave tasks waiting.
    this.piscina.on('workerDestroy', (worker: { id: number }) => {
      this.readyWorkers.delete(worker.id);
      threads.stopped(worker.id);
      setImmediate(() => this.reviveIfStranded());
    });
    this.piscina.on('message', (message: unknown) => {
      const started = (message as Record<string, number | undefined> | null)?.[WORKER_STARTED_KEY];
      if (started !== undefined) return this.startedFor(started);
      const port = (message as Record<string, MessagePort | undefined> | null)?.[EVENTS_PORT_KEY];
      if (!port) return;
      this.workerCameUp = true;
      this.settleCameUp();
      this.exposeEvents(port);
    });
  }

  get queueFull(): boolean {
    return this.piscina.queueSize >= this.piscina.options.maxQueue;
  }

  /** Delivers the events the worker sends for `callId` until the returned function is called. */
  listen(callId: string, events: CallEvents): () => void {
    this.listeners.set(callId, events);
    return () => this.listeners.delete(callId);
  }

  /** Runs one task within its limits. Never throws: how the task ended is the outcome. */
  async run<T extends PoolTask>(task: T, limits: TaskLimits): Promise<TaskOutcome<TaskReplies[T['kind']]>> {
    const row = this.rows.acquire();
    if (row === undefined) return { kind: 'busy' };
    const stop = new TaskStop(row, limits);
    const { signal } = limits;
    if (signal?.aborted) stop.stop('cancelled');
    signal?.addEventListener('abort', stop, { once: true });
    this.active.add(stop);
    // Referenced, like a timer per call would be: a call in flight keeps the process alive.
    this.deadlineSweep ??= setInterval(() => this.sweepDeadlines(), DEADLINE_SWEEP_MS);
    try {
      if (this.wouldStartWorker() && !(await this.passStartGate(stop))) {
        this.releaseRow(row);
        return stop.failure !== undefined ? { kind: 'crashed', message: stop.failure } : { kind: stop.why ?? 'cancelled' };
      }
      stop.submitted = true;
      this.submitted++;
      const reply = await this.piscina.run({ ...task, row }, { signal: stop });
      this.releaseRow(row);
      return { kind: 'done', value: replyTo(task, reply) };
    } catch (error) {
      this.releaseRow(row);
      this.reviveIfStranded();
      const retired = task.kind === 'run' ? this.retired.get(task.context.callId) : undefined;
      if (retired !== undefined) return { kind: 'done', value: replyTo(task, retired) };
      if (stop.failure) return { kind: 'crashed', message: stop.failure };
      if (stop.why) return { kind: stop.why };
      return { kind: 'crashed', message: error instanceof Error ? error.message : String(error) };
    } finally {
      if (stop.submitted) this.submitted--;
      this.leaveStartGate(stop);
      if (task.kind === 'run') this.retired.delete(task.context.callId);
      this.active.delete(stop);
      signal?.removeEventListener('abort', stop);
    }
  }

  /** Whether piscina would start a worker for one more task: none is free, and there is room for one. */
  private wouldStartWorker(): boolean {
    // A warm call's case, answered without asking piscina (its `threads` makes an array).
    if (this.submitted < this.readyWorkers.size) return false;
    const threads = this.piscina.threads.length;
    return this.submitted >= threads && threads < this.maxThreads;
  }

  /**
   * Waits at the start gate for a place to start the task's worker; false when the task was
   * stopped first. Waiting is free (no deadline runs until a worker picks the task up).
   */
  private async passStartGate(stop: TaskStop): Promise<boolean> {
    const { admitted, withdraw } = WORKER_STARTS.enter();
    stop.addEventListener('abort', withdraw);
    const entered = await admitted;
    stop.removeEventListener('abort', withdraw);
    if (!entered) return false;
    stop.startPlace = true;
    // A worker came free while this task waited: it needs no start of its own.
    if (stop.aborted || !this.wouldStartWorker()) this.leaveStartGate(stop);
    return !stop.aborted;
  }

  private leaveStartGate(stop: TaskStop): void {
    if (!stop.startPlace) return;
    stop.startPlace = false;
    WORKER_STARTS.leave();
  }

  /** The worker running the task in `row` has loaded the config: its start is over. */
  private startedFor(row: number): void {
    for (const stop of this.active) if (stop.row === row) this.leaveStartGate(stop);
  }

  /**
   * Frees a finished task's row: ends every process the task started (whatever its outcome), and
   * gives up its CPU turn if its worker could not (terminated, crashed).
   */
  private releaseRow(row: number): void {
    this.rows.table.endTask(row);
    this.cpuSlots.leave(this.rows.table.seat(row));
    this.rows.release(row);
  }

  /**
   * Stops the tasks past their deadline, reading each row's stamps: a task still waiting for a
   * worker waits on (and may need a worker started); one being loaded for gets the cold-start
   * allowance; else its own time runs from when it started. One interval serves every task
   * (a timer per call cost a warm call more than the check does), and ends once none is left.
   */
  private sweepDeadlines(): void {
    if (this.active.size === 0) {
      clearInterval(this.deadlineSweep);
      this.deadlineSweep = undefined;
      return;
    }
    const now = Date.now();
    for (const stop of this.active) {
      const { timeoutMs, coldStartMs = 0 } = stop.limits;
      const started = this.rows.table.stampOf(stop.row, 'started');
      const picked = this.rows.table.stampOf(stop.row, 'picked');
      lowerLongTask(this.rows.table, stop.row, started, now);
      const deadline = started !== undefined ? started + timeoutMs : picked !== undefined ? picked + coldStartMs + timeoutMs : undefined;
      if (deadline !== undefined && now >= deadline) stop.stop('timeout');
      // Started on a worker that was already up (its own start went to another task).
      if (started !== undefined) this.leaveStartGate(stop);
    }
    this.reviveIfStranded();
  }

  /**
   * Starts a worker now, ahead of the first task: it loads its modules, and its Lua state waits for
   * that task (loading the config here too measured no faster, beside the inspect worker's own).
   */
  warm(): void {
    this.piscina.run({ kind: 'noop', row: -1 }).catch(() => undefined);
  }

  /**
   * A worker's error outside a task. Before any worker of the pool has come up, errors are of
   * starting one (a worker file that cannot load): past START_FAILURE_LIMIT the tasks waiting
   * for a worker fail with that error, instead of the pool starting workers forever.
   */
  private onWorkerError(error: unknown): void {
    if (this.workerCameUp || ++this.startFailures < START_FAILURE_LIMIT) return;
    const message = `a worker could not start: ${error instanceof Error ? error.message : String(error)}`;
    for (const stop of this.active) {
      if (this.rows.table.stampOf(stop.row, 'picked') === undefined) stop.fail(message);
    }
  }

  /**
   * piscina (5.3) does not start a worker for tasks still waiting when the last worker is removed
   * — after an abort, a crash, or a worker lost while starting (with minThreads 0) — so they would
   * wait forever; submitting a task makes it start one, which serves the waiting tasks first.
   */
  private reviveIfStranded(): void {
    if (this.piscina.threads.length > 0) return;
    const waiting = [...this.active].some((stop) => stop.submitted && this.rows.table.stampOf(stop.row, 'picked') === undefined);
    if (waiting) this.warm();
  }

  stats(): PoolStats {
    const queued = this.piscina.queueSize;
    return { alive: this.piscina.threads.length, busy: this.active.size - queued, queued };
  }

  /**
   * Cancels every task in flight (they end as `cancelled`), then stops the workers, waiting at
   * most CLOSE_WAIT_MS for them to exit: a thread that cannot be stopped is counted, not awaited.
   */
  async close(): Promise<void> {
    for (const stop of this.active) stop.stop('cancelled');
    clearInterval(this.deadlineSweep);
    this.deadlineSweep = undefined;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([this.piscina.destroy(), waited]);
    clearTimeout(timer);
  }

  private exposeEvents(port: MessagePort): void {
    const router: WorkerEvents = {
      log: (callId, texts) => {
        const listener = this.listeners.get(callId);
        if (listener) for (const text of texts) listener.log(text);
      },
      title: (callId, text) => this.listeners.get(callId)?.title(text),
      snapshot: (callId, bytes) => this.listeners.get(callId)?.snapshot(bytes),
      retire: (callId, reply) => void this.retired.set(callId, reply),
    };
    expose(router, nodeEndpoint(port));
    // The port must not keep the host alive once its worker is gone.
    port.unref();
  }
}
