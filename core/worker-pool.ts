// A pool of Lua workers for one role: a module's `run` calls, or a generation's inspect work
// (discovery, `available`, `render`). piscina runs the threads: one task per worker, `maxThreads`,
// `idleTimeout`, and an AbortSignal that terminates the worker running its task. This layer adds:
// - tasks past `maxThreads` wait here in the order they came (piscina reorders tasks with a
//   signal), and past `maxQueue` of them a task is refused as busy;
// - a task's time limit counts from when its worker picked it up (the task table's stamps), plus
//   a cold worker's allowance for loading the config; waiting for a worker or for the user's
//   answer (`ctx:ask`) is free;
// - every process a task started is ended however the task ends (TaskTable.endTask);
// - a worker told to stop that does not exit is counted (ThreadWatch), never awaited for ever;
// - a worker that retires after running out of memory hands its reply over first;
// - worker starts of the whole process pass a start gate;
// - a caller's AbortSignal is listened to once, however many of its tasks are in flight;
// - a task that has run FREE_RUN_MS has its thread reniced to LONG_CALL_NICE (Linux only: there
//   the worker names its thread in the task's row).
import { availableParallelism, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { MessagePort, Worker } from 'node:worker_threads';
import { expose } from 'comlink';
import { Piscina } from 'piscina';
import { FREE_RUN_MS, LONG_CALL_NICE } from '../shared/call-priority.js';
import type { CpuSlots } from '../shared/cpu-slots.js';
import { TaskTable } from '../shared/task-table.js';
import {
  EVENTS_PORT_KEY,
  type AskAnswer,
  type AskQuestion,
  type CallEvents,
  type PoolTask,
  type RunReply,
  type TaskReplies,
  type WorkerConfig,
  type WorkerEvents,
  type WorkerEventsPort,
} from '../shared/protocol.js';
import { within } from '../shared/within.js';
import { tell } from './call-result.js';
import { stuckAfterMs, type ThreadWatch } from './thread-watch.js';

/** The file every worker thread serves its tasks from (see workers/lua-worker-entry.cts). */
export const WORKER_ENTRY = fileURLToPath(new URL('../workers/lua-worker-entry.cjs', import.meta.url));
/** A worker's V8 young generation: Lua's heap is wasm memory, so V8's default of several MB would sit unused. */
const WORKER_YOUNG_GENERATION_MB = 2;
/**
 * A worker's V8 old generation: Lua's heap is wasm memory and does not count, so this bounds only
 * JavaScript-side growth (a 16 MiB result needs under 100 MiB); past it the call crashes, never the host.
 */
const WORKER_OLD_GENERATION_MB = 512;
/**
 * How many workers may be starting at once. A worker's start (Node's bootstrap, our modules, the Lua
 * state, the config) is CPU-bound: fifty started together on two cores all finish late. Through the
 * gate they start a few at a time, first come first served.
 */
export class StartGate {
  /** Places taken now. */
  taken = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly slots: number) {}

  /**
   * Asks for a place: true once taken (leave() gives it back), at once when one is free, else after the starts
   * waiting before it; false when `signal` aborts first.
   */
  enter(signal: AbortSignal): Promise<boolean> {
    if (this.taken < this.slots) {
      this.taken++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const admit = (): void => {
        signal.removeEventListener('abort', withdraw);
        resolve(true);
      };
      const withdraw = (): void => {
        this.waiting.splice(this.waiting.indexOf(admit), 1);
        resolve(false);
      };
      this.waiting.push(admit);
      signal.addEventListener('abort', withdraw, { once: true });
    });
  }

  /** Starts waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Gives a place back: the start that has waited longest takes it. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.taken--;
  }
}

/** Workers of the process starting at once: a few more than the CPUs, for starts that wait on I/O. */
export const WORKER_START_SLOTS = availableParallelism() + 2;
const WORKER_STARTS = new StartGate(WORKER_START_SLOTS);
/** How often running tasks' deadlines are checked: a timeout ends at most this much late. */
const DEADLINE_SWEEP_MS = 50;
/** The longest delay a Node timer keeps: piscina's idle timer fires at once past it. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The cancels of the tasks in flight on each caller's signal, listened to once (Node warns past 10 listeners). */
const cancelsOf = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `cancel` when `signal` aborts, until the returned function is called; throws for a signal it cannot use. */
function onAbort(signal: AbortSignal, cancel: () => void): () => void {
  let cancels = cancelsOf.get(signal);
  if (cancels === undefined) {
    const listeners = new Set<() => void>();
    signal.addEventListener('abort', () => listeners.forEach((listener) => listener()), { once: true });
    cancelsOf.set(signal, (cancels = listeners));
  }
  cancels.add(cancel);
  return () => void cancels.delete(cancel);
}

export interface WorkerPoolOptions {
  config: Omit<WorkerConfig, 'taskTable' | 'taskTableEpochMs' | 'cpuSlots'>;
  /** The host's CPU slots: the pool gives up the turn of a task whose worker it terminated. */
  cpuSlots: CpuSlots;
  maxThreads: number;
  /** Workers kept alive, idle or not (started with the pool). */
  minThreads?: number;
  idleTimeout: number;
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
  /** `unstarted`: its worker never got ready for it (a start or a load of the config that did not finish). */
  | { kind: 'timeout'; unstarted?: true }
  | { kind: 'cancelled' }
  | { kind: 'busy' }
  | { kind: 'crashed'; message: string };

export interface TaskLimits {
  /** Wall-clock limit counted from when the task's work begins (waiting for a worker is free). */
  timeoutMs: number;
  /** What a cold worker may spend loading the config before the task's own time starts. */
  coldStartMs?: number;
  signal?: AbortSignal | undefined;
  /** See CallOptions. */
  onQueued?: ((place: number) => void) | undefined;
  onStart?: (() => void) | undefined;
  /** Receives the events the worker sends for a `run` task. */
  events?: CallEvents | undefined;
}

/** How the pool ends a task early. */
type Stopped = { kind: 'timeout'; unstarted?: true } | { kind: 'cancelled' } | { kind: 'crashed'; message: string };

/** How a call that no worker could be started for is told why. */
const START_FAILURE = 'a worker could not start: ';
/** Worker starts in a row that may fail before their code loads before the tasks waiting for one fail. */
const START_FAILURE_LIMIT = 3;

/** One task from when it is handed to the pool until it ends. */
interface Job {
  readonly row: number;
  /** The call it runs, for a `run` task: its worker's events name it. */
  readonly callId: string | undefined;
  readonly kind: PoolTask['kind'];
  readonly limits: TaskLimits;
  readonly abort: AbortController;
  /** How it ended when the pool ended it early. */
  stopped?: Stopped;
  /** Time it has waited unpicked while the pool had room to run it (a worker loading, or stuck loading). */
  unpickedMs: number;
  /** It waits in line at the start gate. */
  atGate?: boolean;
  /** Its start gate place once admitted (true), then the id of the thread piscina started for it, which holds it. */
  startPlace?: true | number | undefined;
  /** Handed to piscina: at most maxThreads tasks (not `warm`) are, so each finds a worker free or starting. */
  handed?: boolean;
  /** While it waits its turn to be handed to piscina: lets it go on. */
  go?: (() => void) | undefined;
  /** While it waits behind other tasks until a worker takes it: the place its caller was last told (0: none yet). */
  place?: number | undefined;
  /** The reply its worker handed over before retiring (see WorkerEvents.retire). */
  retiredReply?: RunReply;
  /** Time its questions to the user have waited for their answers: its time limit is that much later. */
  askedMs: number;
  /** When the question it waits on was asked. */
  askingSince?: number | undefined;
  /** Made when it asks; aborted when the task ends however it ends (a crash too): the question it waits on is dropped. */
  ended?: AbortController;
}

export class WorkerPool {
  private readonly piscina: Piscina;
  private readonly table: TaskTable;
  /** Rows of the table no task holds, the last released on top. */
  private readonly freeRows: number[];
  /** Tasks handed to the pool and not yet ended, by row. */
  private readonly jobs = new Map<number, Job>();
  /** The `run` tasks among them, by call id: their worker's events name the call. */
  private readonly calls = new Map<string, Job>();
  /** When the pool first saw each thread whose code has not loaded yet (Date.now() ms); a thread that is up has none. */
  private readonly startingSince = new Map<number, number>();
  /** Tasks (not `warm`) handed to piscina and not ended: at most maxThreads, so each finds a worker free or starting. */
  private handed = 0;
  /** A report of the queued tasks' places is due at the end of this tick. */
  private placesDue = false;
  /** Workers in a row that exited before their code loaded. */
  private startFailures = 0;
  private deadlineSweep: NodeJS.Timeout | undefined;
  private lastSweep = 0;
  private settleCameUp: () => void = () => undefined;
  /** Settles once a worker of this pool has loaded its code. */
  readonly cameUp = new Promise<void>((resolve) => (this.settleCameUp = resolve));
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {
    // A row per call the pool takes, and one per thread for the `warm` tasks that start workers.
    const rows = 2 * options.maxThreads + options.maxQueue;
    this.table = TaskTable.create(rows);
    this.freeRows = Array.from({ length: rows }, (_, index) => rows - 1 - index);
    const { buffer, epochMs } = this.table;
    const workerData: WorkerConfig = {
      ...options.config,
      taskTable: buffer,
      taskTableEpochMs: epochMs,
      cpuSlots: options.cpuSlots.buffer,
    };
    this.piscina = new Piscina({
      filename: WORKER_ENTRY,
      workerData,
      minThreads: options.minThreads ?? 0,
      maxThreads: options.maxThreads,
      // Past what a timer keeps, piscina's idle timer would fire at once: such a pool never reaps.
      idleTimeout: options.idleTimeout > MAX_TIMER_MS ? Infinity : options.idleTimeout,
      concurrentTasksPerWorker: 1,
      // A worker waits for its next task in its event loop, which its live events and commands need.
      atomics: 'disabled',
      resourceLimits: {
        maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB,
        maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB,
      },
      trackUnmanagedFds: true,
      // The pool's figures come from the task table; piscina's histograms would go unread.
      recordTiming: false,
    });
    this.piscina.on('message', (message: WorkerEventsPort) => {
      if (typeof message === 'object' && message !== null && EVENTS_PORT_KEY in message) this.workerUp(message);
    });
    // A worker that fails between tasks has no task to fail; its next task gets a new worker.
    this.piscina.on('error', () => undefined);
  }

  /** The pool's live worker threads. */
  get threads(): Worker[] {
    return [...this.piscina.threads];
  }

  /** Runs one task within its limits; throws only for a task no worker can be sent or a signal it cannot listen to. */
  async run<T extends PoolTask>(task: T, limits: TaskLimits): Promise<TaskOutcome<TaskReplies[T['kind']]>> {
    if (this.closed) return { kind: 'cancelled' };
    // Refused as busy once the tasks waiting beyond the pool's threads reach maxQueue (never while fewer are held).
    if (task.kind !== 'warm' && this.jobs.size >= this.options.maxQueue) {
      const { alive, queued } = this.stats();
      if (queued - (this.options.maxThreads - alive) >= this.options.maxQueue) return { kind: 'busy' };
    }
    const row = this.freeRows.pop();
    if (row === undefined) return { kind: 'busy' };
    this.table.reset(row);
    const callId = task.kind === 'run' ? task.context.callId : undefined;
    const job: Job = {
      row,
      callId,
      kind: task.kind,
      limits,
      abort: new AbortController(),
      unpickedMs: 0,
      askedMs: 0,
    };
    this.jobs.set(row, job);
    if (callId !== undefined) this.calls.set(callId, job);
    let stopListening: (() => void) | undefined;
    let listening = false;
    try {
      // A signal that cannot be read or listened to (a caller's own object) is the caller's error.
      if (limits.signal?.aborted) return { kind: 'cancelled' };
      if (limits.signal) stopListening = onAbort(limits.signal, () => this.stop(job, { kind: 'cancelled' }));
      listening = true;
      // A task handed to piscina now starts a worker when every thread has a task and there is room for another.
      const threads = this.piscina.threads.length;
      if (this.jobs.size > threads && threads < this.options.maxThreads) {
        if (WORKER_STARTS.taken >= WORKER_STARTS.slots) this.queue(job);
        job.atGate = true;
        if (await WORKER_STARTS.enter(job.abort.signal)) job.startPlace = true;
        job.atGate = false;
      }
      // Closing the pool stops every task it holds: a stopped task is all that is left to check for.
      if (job.stopped) return job.stopped;
      if (task.kind !== 'warm') {
        if (this.handed < this.options.maxThreads) this.hand(job);
        else {
          this.queue(job);
          this.leaveStartGate(job);
          // handOn lets it go on in its turn.
          await new Promise<void>((go) => (job.go = go));
          if (job.stopped) return job.stopped;
        }
      }
      this.deadlineSweep ??= setInterval(() => this.sweepDeadlines(), DEADLINE_SWEEP_MS);
      const running = this.piscina.run({ ...task, row }, { signal: job.abort.signal });
      const started = this.watchThreads();
      // The place goes with the thread piscina started for the task, if it started one.
      if (job.startPlace && started !== undefined) job.startPlace = started;
      else this.leaveStartGate(job);
      return { kind: 'done', value: (await running) as TaskReplies[T['kind']] };
    } catch (error) {
      if (!listening) throw error;
      return this.failure<T>(job, error);
    } finally {
      this.end(job);
      stopListening?.();
    }
  }

  /** How a task that threw ended: stopped by the pool, retired with its reply handed over, refused, or crashed. */
  private failure<T extends PoolTask>(job: Job, error: unknown): TaskOutcome<TaskReplies[T['kind']]> {
    if (job.stopped) return job.stopped;
    if (job.retiredReply !== undefined) return { kind: 'done', value: job.retiredReply as TaskReplies[T['kind']] };
    if (!(error instanceof Error)) return { kind: 'crashed', message: String(error) };
    // A task structured clone refuses never reached a worker: the caller's mistake, thrown to it.
    if (error.name === 'DataCloneError') throw error;
    // piscina's answer when the worker's file could not be loaded (missing, unreadable).
    if (error.message.startsWith('No handler function exported from'))
      return { kind: 'crashed', message: `${START_FAILURE}cannot load ${WORKER_ENTRY}` };
    return {
      kind: 'crashed',
      message: error.message.replace(/^worker exited with code: /, 'worker exited with code '),
    };
  }

  /** A task has ended: its processes, CPU turn, row and start place are given back. */
  private end(job: Job): void {
    job.ended?.abort();
    // A queued task a worker took between two sweeps still started.
    if (job.place !== undefined && this.table.stampOf(job.row, 'picked') !== undefined) this.startedQueued(job);
    this.leaveStartGate(job);
    this.jobs.delete(job.row);
    if (job.callId !== undefined) this.calls.delete(job.callId);
    if (job.handed) {
      this.handed--;
      this.handOn();
    }
    // The host's thread never waits for a process to exit: a cgroup is removed once its processes have.
    this.table.endTask(job.row, false);
    this.options.cpuSlots.leave(this.table.words, this.table.seat(job.row));
    // Back only now that no worker can write to it: its task has ended.
    this.freeRows.push(job.row);
  }

  /**
   * Watches each new thread's exit. piscina starts no worker for its queued tasks when one exits, so the pool
   * hands it a `warm` task, unless START_FAILURE_LIMIT workers in a row failed to come up: then those tasks fail.
   */
  private watchThreads(): number | undefined {
    let started: number | undefined;
    for (const thread of this.piscina.threads) {
      if (!this.options.threads.started(thread)) continue;
      started ??= thread.threadId;
      // Read now: an exited thread's id is -1.
      const { threadId } = thread;
      this.startingSince.set(threadId, Date.now());
      let failure: string | undefined;
      thread.on('error', (error: unknown) => (failure ??= error instanceof Error ? error.message : String(error)));
      thread.once('exit', () => this.threadExited(threadId, failure));
    }
    return started;
  }

  /** A thread has exited; `failure`: what failed in it (a thread terminated by the pool or piscina has none). */
  private threadExited(threadId: number, failure: string | undefined): void {
    const cameUp = !this.startingSince.delete(threadId);
    this.threadStarted(threadId);
    if (this.closed) return;
    if (!cameUp && failure !== undefined && ++this.startFailures >= START_FAILURE_LIMIT) {
      this.startFailures = 0;
      // The worker's own code says so when it fails to load; a thread that failed before it ran does not.
      const message = failure.startsWith(START_FAILURE) ? failure : `${START_FAILURE}${failure}`;
      for (const job of this.jobs.values()) {
        if (!job.atGate && this.table.workerOf(job.row) === undefined) this.stop(job, { kind: 'crashed', message });
      }
      return;
    }
    this.startForWaiting();
  }

  /** Hands piscina a `warm` task (starting a worker) when more tasks wait unpicked than free threads will take. */
  private startForWaiting(): void {
    const threads = this.piscina.threads.length;
    if (this.closed || threads >= this.options.maxThreads) return;
    let picked = 0;
    let unpicked = 0;
    for (const job of this.jobs.values()) {
      if (job.atGate || job.stopped) continue;
      if (this.table.workerOf(job.row) === undefined) unpicked++;
      else picked++;
    }
    if (unpicked > threads - picked) void this.run({ kind: 'warm' }, { timeoutMs: MAX_TIMER_MS });
  }

  /** The task is no longer waiting for a thread to start for it: its start gate place, if any, goes back. */
  private leaveStartGate(job: Job): void {
    if (job.startPlace === undefined) return;
    job.startPlace = undefined;
    WORKER_STARTS.leave();
  }

  /** The thread has made its Lua state, or exited: the start gate place it held, if any, goes back. */
  private threadStarted(threadId: number): void {
    for (const job of this.jobs.values()) if (job.startPlace === threadId) this.leaveStartGate(job);
  }

  /** `job` is handed to piscina: it counts against maxThreads until it ends. */
  private hand(job: Job): void {
    job.handed = true;
    this.handed++;
  }

  /** Hands the tasks that came first to piscina while fewer than maxThreads are handed. */
  private handOn(): void {
    for (const job of this.jobs.values()) {
      if (this.handed >= this.options.maxThreads) return;
      if (job.go === undefined || job.stopped) continue;
      this.hand(job);
      job.go();
      job.go = undefined;
    }
  }

  /** Ends `job` early: a picked-up task's worker is terminated (thread watch told first); a waiting one leaves. */
  private stop(job: Job, how: Stopped): void {
    if (job.stopped || !this.jobs.has(job.row)) return;
    job.stopped = how;
    job.go?.();
    const workerId = this.table.workerOf(job.row);
    if (workerId !== undefined) this.options.threads.stopped(workerId);
    job.abort.abort();
    // piscina has let go of the worker it terminated, which may not exit (stuck in a system call).
    if (workerId !== undefined) this.startForWaiting();
  }

  /**
   * Stops the tasks past their deadline: time runs from `started`, or from `picked` plus `coldStartMs`; an unpicked
   * task is timed only while the pool has room for it, and then its never-up worker is terminated. One interval
   * serves every task and ends once none is left; long tasks' threads are lowered here too.
   */
  private sweepDeadlines(): void {
    const now = Date.now();
    const sinceLast = this.lastSweep === 0 ? 0 : now - this.lastSweep;
    this.lastSweep = now;
    if (this.jobs.size === 0) {
      clearInterval(this.deadlineSweep);
      this.deadlineSweep = undefined;
      this.lastSweep = 0;
      return;
    }
    this.watchThreads();
    this.reportPlaces();
    const picked = [...this.jobs.values()].filter((job) => this.table.stampOf(job.row, 'picked') !== undefined);
    const room = picked.length < this.options.maxThreads;
    for (const job of this.jobs.values()) {
      if (job.stopped || job.atGate) continue;
      const { timeoutMs, coldStartMs = 0 } = job.limits;
      const started = this.table.stampOf(job.row, 'started');
      const pickedAt = this.table.stampOf(job.row, 'picked');
      if (started !== undefined && now - started >= FREE_RUN_MS) lowerThread(this.table.takeThread(job.row));
      // A task waiting for the user's answer runs nothing: its time stands still.
      if (job.askingSince !== undefined) continue;
      if (started !== undefined) {
        if (now >= started + timeoutMs + job.askedMs) this.stop(job, { kind: 'timeout' });
      } else if (pickedAt !== undefined) {
        if (now >= pickedAt + coldStartMs + timeoutMs) this.stop(job, { kind: 'timeout', unstarted: true });
      } else if (room) {
        job.unpickedMs += sinceLast;
        if (job.unpickedMs >= coldStartMs + timeoutMs) {
          this.stop(job, { kind: 'timeout', unstarted: true });
          this.stopThreadsNeverUp(now - coldStartMs);
        }
      }
    }
  }

  /** `job` waits behind other tasks, at the start gate or for a busy worker: its caller, if it listens, hears its place. */
  private queue(job: Job): void {
    if (job.place !== undefined) return;
    job.place = 0;
    this.reportPlacesSoon();
  }

  /** Reports the places once the current burst of changes is over: one walk, however many tasks joined or started. */
  private reportPlacesSoon(): void {
    if (this.placesDue) return;
    this.placesDue = true;
    queueMicrotask(() => {
      this.placesDue = false;
      this.reportPlaces();
    });
  }

  /** Tells each queued task's caller its place among the tasks no worker has taken, when it changed, or that a worker took it. */
  private reportPlaces(): void {
    let place = 0;
    for (const job of this.jobs.values()) {
      if (job.place === undefined || job.stopped) continue;
      if (this.table.stampOf(job.row, 'picked') !== undefined) this.startedQueued(job);
      else if (++place !== job.place) {
        job.place = place;
        tell(() => job.limits.onQueued?.(place));
      }
    }
  }

  /** A queued task was taken by a worker: its caller hears it started. */
  private startedQueued(job: Job): void {
    tell(() => job.limits.onStart?.());
    job.place = undefined;
  }

  /** A call sent an event, so a worker has it: its caller hears that it started, before the event; those behind move up. */
  private heardFrom(callId: string): CallEvents | undefined {
    const job = this.calls.get(callId);
    if (job?.place !== undefined) {
      this.startedQueued(job);
      this.reportPlacesSoon();
    }
    return job?.limits.events;
  }

  /** A call's question to the user, one at a time: its time limit pauses meanwhile; ending the call aborts it. */
  private async ask(callId: string, question: AskQuestion): Promise<AskAnswer> {
    const job = this.calls.get(callId);
    const listener = job?.limits.events;
    if (job === undefined || job.stopped || listener?.ask === undefined || job.askingSince !== undefined)
      return { refused: 'unavailable' };
    this.heardFrom(callId);
    job.askingSince = Date.now();
    try {
      // Not job.abort: piscina listens to it, and a task that crashed on its own was never stopped.
      job.ended ??= new AbortController();
      return await listener.ask(question, job.ended.signal);
    } finally {
      job.askedMs += Date.now() - job.askingSince;
      job.askingSince = undefined;
    }
  }

  /**
   * Terminates the pool's threads whose code has not loaded since before `startedBefore` (stuck reading it, say), so
   * that piscina starts others; a thread started since (a crashed one's replacement) may already hold another task.
   */
  private stopThreadsNeverUp(startedBefore: number): void {
    for (const thread of this.piscina.threads) {
      const since = this.startingSince.get(thread.threadId);
      if (since === undefined || since > startedBefore) continue;
      this.options.threads.stopped(thread.threadId);
      void thread.terminate();
    }
  }

  /** Tasks running or waiting; those a thread (running, or starting) has for them count as busy. */
  stats(): PoolStats {
    const tasks = [...this.jobs.values()].filter((job) => job.kind !== 'warm' && !job.stopped).length;
    const alive = this.piscina.threads.length;
    const busy = Math.min(tasks, alive);
    return { alive, busy, queued: tasks - busy };
  }

  /** Cancels every task, then stops the workers, waiting as long as a thread has to exit (stuckAfterMs): a stuck thread is counted, not awaited. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.jobs.values()) this.stop(job, { kind: 'cancelled' });
    clearInterval(this.deadlineSweep);
    this.deadlineSweep = undefined;
    for (const thread of this.piscina.threads) {
      this.options.threads.started(thread);
      this.options.threads.stopped(thread.threadId);
    }
    for (const job of this.jobs.values()) this.leaveStartGate(job);
    await within(this.piscina.destroy(), stuckAfterMs());
  }

  /** A worker's code has loaded: its events are routed by call id from now on. */
  private workerUp(message: WorkerEventsPort): void {
    const { threadId } = message;
    const port: MessagePort = message[EVENTS_PORT_KEY];
    this.watchThreads();
    this.startingSince.delete(threadId);
    this.startFailures = 0;
    this.settleCameUp();
    const router: WorkerEvents = {
      log: (callId, texts) => {
        const listener = this.heardFrom(callId);
        if (listener) for (const text of texts) listener.log(text);
      },
      title: (callId, text) => this.heardFrom(callId)?.title(text),
      snapshot: (callId, bytes) => this.heardFrom(callId)?.snapshot(bytes),
      ask: (callId, question) => this.ask(callId, question),
      retire: (callId, reply) => {
        // Kept only for a call in flight: one already ended (its deadline came first) never reads it.
        const job = this.calls.get(callId);
        if (job && !job.stopped) job.retiredReply = reply;
      },
      started: () => this.threadStarted(threadId),
    };
    expose(router, port);
    // The port must not keep the host alive once its worker is gone.
    port.unref();
  }
}

/** Renices a long task's thread (0: none named, or lowered already). */
function lowerThread(threadId: number): void {
  if (threadId === 0) return;
  try {
    setPriority(threadId, LONG_CALL_NICE);
  } catch {
    // The thread has exited (its task ended, its worker was terminated): nothing left to lower.
  }
}
