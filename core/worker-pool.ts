// A pool of Lua workers for one role: a module's `run` calls, or a generation's inspect work
// (discovery, `available`). A worker runs one task at a time, each under a wall-clock limit and
// cancel signals; ending a running task early terminates its worker; however a task ends, every
// process it started is ended. Tasks go to a free worker, else wait in order: in the port of a
// worker whose tasks are quick (see QUEUED_WORK_MS), so that a burst of quick calls flows through
// one warm worker, which never sleeps between them, instead of starting more; or in the pool's
// queue, a worker being started, up to the pool's limit, for each task no starting worker will
// take, after waiting, untimed, for a place at the process's start gate (a starting worker takes
// its task at once: the task waits in its port while it loads). A task waiting in a port is
// withdrawn through the task table, never run twice: to cancel it, when its worker leaves, or when
// the task ahead of it turns out slow. Idle workers end after the idle timeout. Each worker's event
// port is exposed once; events route by call id.
import { availableParallelism } from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { CpuSlots } from '../shared/cpu-slots.js';
import type { CallEvents, PoolTask, RunReply, TaskAnswer, TaskReplies, WorkerConfig, WorkerEvents, WorkerReply } from '../shared/protocol.js';
import { DOUBLE_ZERO } from './double-zero.js';
import { ANSWER_WAIT_MS, HotLoop } from './hot-loop.js';
import type { CancelSignal } from './call-result.js';
import { PoolWorker, type PoolWorkerEvents } from './pool-worker.js';
import { StartGate } from './start-gate.js';
import { TaskRows } from './task-rows.js';
import { lowerLongTask, type LongTaskLook } from './thread-priority.js';
import { STUCK_AFTER_MS, type ThreadWatch } from './thread-watch.js';
import { LOOK_MS } from './worker-stall.js';

export { WORKER_ENTRY } from './worker-thread.js';
/** How long closing waits for its workers to exit; a thread stuck in a system call is left behind. */
const CLOSE_WAIT_MS = STUCK_AFTER_MS;
/** Workers that may fail to start in a row, none coming up, before the tasks waiting for one fail. */
const START_FAILURE_LIMIT = 3;
/**
 * Workers of the whole process that may be starting at once (see start-gate.ts): a few more than
 * the CPUs, for starts that wait on a file or a command. Process-wide, not per host: what starts
 * contend for — the CPUs and V8's GC threads — every isolate of the process shares.
 */
export const WORKER_START_SLOTS = availableParallelism() + 2;
const WORKER_STARTS = new StartGate(WORKER_START_SLOTS);
/** The thread's event loop, kept turning for quick answers (see hot-loop.ts): one per thread, as the loop is. */
const HOT_LOOP = new HotLoop();
/**
 * A worker whose share of late answers (over ANSWER_WAIT_MS) is under this is waited for awake: a
 * tool quick two calls in three and 0.3 ms the third, waited for at every call, cost the host's
 * thread a fifth more CPU a call for no gain (found by a hostile review).
 */
const MOST_LATE_ANSWERS = 1 / 4;
/** The weight of one answer in a worker's share of late answers. */
const LATE_ANSWER_WEIGHT = 1 / 8;

export interface WorkerPoolOptions {
  config: Omit<WorkerConfig, 'taskTable' | 'taskTableEpochMs' | 'cpuSlots'>;
  /** The host's CPU slots: the pool gives up the turn of a task whose worker it terminated. */
  cpuSlots: CpuSlots;
  maxThreads: number;
  /** How long a worker lives idle before it is ended. */
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

/** The longest delay a Node timer keeps (a longer one fires at once, with a warning). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How often running tasks' deadlines are checked: a timeout ends at most this much late. */
const DEADLINE_SWEEP_MS = 50;

/**
 * A busy worker takes more tasks into its port while the work waiting there, by what its recent
 * tasks took, stays under this, and its current task has run less than this; tasks in a port
 * whose current task has run this long go back to the queue, for another worker or a new one.
 */
const QUEUED_WORK_MS = 10;
/**
 * Most tasks a worker holds at once: the one it runs and those in its port. More in its port, fewer
 * in the pool's queue: a worker out of tasks while jobs wait in a queue sleeps (CpuSlots.spareForWaiting),
 * and 64 instead of 32 took the MCP bench's first burst about 5% further (docs/decisions.md).
 */
const WORKER_TASK_DEPTH = 64;
/**
 * Tasks left waiting while a worker's tasks flow quickly start no new worker unless, by what its
 * tasks take, they would keep it busy this long: a start costs a worker about this much CPU.
 */
const WORTH_A_START_MS = 50;
/**
 * The share of the time its workers must have spent working, with tasks waiting behind that work,
 * for the pool to start a worker although a quick one would get through the waiting tasks soon:
 * callers that keep a worker busy get another (a burst held up by the main thread does not).
 */
const BUSY_BEHIND_SHARE = 3 / 4;
/** How much one answer moves a worker's average task time (a task slowed by the scheduler is one of many). */
const COST_WEIGHT = 1 / 8;
/**
 * The most one answer counts for in that average: four times the average, or this (ms) if more.
 * A task the scheduler kept off the CPU for a few ms, common while a burst keeps more threads
 * busy than there are CPUs, made a 4 µs tool's average 0.37 ms, and the 250 calls waiting behind
 * it look like 90 ms of work worth starting a worker for (some 50 ms of CPU, on CPUs already
 * short). A tool that really turns slow still raises the average by three eighths each answer.
 */
const COST_SAMPLE_FLOOR_MS = 0.1;
/** Tickets count up to here, then start again at 1. */
const MAX_TICKET = 2 ** 31 - 1;

/**
 * The one place a reply that crossed the thread boundary takes its type: the worker's handler is a
 * TaskHandler (shared/protocol.ts), checked to answer a task of kind K with TaskReplies[K].
 */
function replyTo<T extends PoolTask>(_task: T, reply: WorkerReply): TaskReplies[T['kind']] {
  return reply as TaskReplies[T['kind']];
}

/** How a job ended, before the pool reads it as a TaskOutcome. */
type JobEnd = { reply: WorkerReply } | { error: string } | { stopped: 'timeout' | 'cancelled' } | { crashed: string } | { unsent: Error };

/** One task from when it is handed to the pool until it ends. */
class Job implements LongTaskLook {
  /** The worker running it, once one took it. */
  worker: PoolWorker | undefined;
  /** When it was handed to that worker with nothing ahead of it, or became its first task (Date.now()). */
  handedAt: number | undefined;
  /** Its stop, asked for while its worker claimed it but had not yet answered the task ahead of it. */
  stopWhenFirst: 'timeout' | 'cancelled' | undefined;
  isEnded = false;
  /** The ticket it was last handed under, which its worker claims it with (0: not handed yet). */
  ticket = 0;
  /** Its thread's CPU time when the deadline sweep first saw it past FREE_RUN_MS (see lowerLongTask). */
  ranNs: number | undefined = undefined;
  readonly ended: Promise<JobEnd>;
  private settle!: (end: JobEnd) => void;

  constructor(
    private readonly pool: WorkerPool,
    readonly task: PoolTask,
    /** Its row of the pool's task table. */
    readonly row: number,
    readonly limits: TaskLimits,
  ) {
    this.ended = new Promise<JobEnd>((resolve) => (this.settle = resolve));
  }

  end(how: JobEnd): void {
    if (this.isEnded) return;
    this.isEnded = true;
    this.settle(how);
  }

  /** The caller's signal aborted (the job listens to it as an EventListenerObject: no closure per task). */
  handleEvent(): void {
    this.pool.stop(this, 'cancelled');
  }
}

export class WorkerPool implements PoolWorkerEvents {
  private readonly rows: TaskRows;
  private readonly cpuSlots: CpuSlots;
  private readonly hotLoop = HOT_LOOP;
  private readonly workerConfig: WorkerConfig;
  private readonly options: WorkerPoolOptions;
  private readonly listeners = new Map<string, CallEvents>();
  /** Every job with a row not yet ended: waiting or running. */
  private readonly active = new Set<Job>();
  /** Jobs waiting for a worker, in order. */
  private readonly queue: Job[] = [];
  /** The pool's workers, starting or up (a worker told to stop leaves at once). */
  private readonly workers = new Set<PoolWorker>();
  /** Workers without a task (up, or still loading), the last freed on top. */
  private readonly free: PoolWorker[] = [];
  /** Starts waiting at the start gate. */
  private gateWaits = 0;
  private deadlineSweep: NodeJS.Timeout | undefined;
  /** Looks again at tasks waiting in workers' ports (or held back from starting workers) LOOK_MS after. */
  private queuedWatch: NodeJS.Timeout | undefined;
  private lastTicket = 0;
  /** This queue's length as last added to the host's count of waiting jobs (see countQueued). */
  private countedQueued = 0;
  /** The work its workers did (ms, as they measured it) with tasks waiting behind, since `behindSince` (performance.now()). */
  private workBehindMs = DOUBLE_ZERO;
  private behindSince = DOUBLE_ZERO;
  private idleReaper: NodeJS.Timeout | undefined;
  /** Replies handed over by workers that exited after their task (see WorkerEvents.retire). */
  private readonly retired = new Map<string, RunReply>();
  private settleCameUp: () => void = () => undefined;
  /** Settles once a worker of this pool has loaded its code. */
  readonly cameUp = new Promise<void>((resolve) => (this.settleCameUp = resolve));
  /** Workers in a row that failed before coming up (their code cannot load, say). */
  private startFailures = 0;
  private closed = false;

  constructor(options: WorkerPoolOptions) {
    this.options = options;
    this.rows = new TaskRows(options.maxThreads + options.maxQueue);
    this.cpuSlots = options.cpuSlots;
    this.workerConfig = { ...options.config, taskTable: this.rows.table.buffer, taskTableEpochMs: this.rows.table.epochMs, cpuSlots: options.cpuSlots.buffer };
  }

  /**
   * Whether a task now would wait past maxQueue: the tasks a worker being started, or one the pool
   * may still start, would take do not count (a task in a quick worker's port, where no worker was
   * started for it, is refused no sooner than one a new worker would have taken).
   */
  get queueFull(): boolean {
    const waiting = this.waiting();
    return waiting - Math.min(waiting, this.options.maxThreads - this.workers.size) >= this.options.maxQueue;
  }

  /** Tasks waiting: in the queue, and in busy workers' ports behind the task each runs. */
  private waiting(): number {
    let inPorts = 0;
    for (const worker of this.workers) inPorts += Math.max(0, worker.tasks.length - 1);
    return this.queue.length + inPorts;
  }

  /** The pool's live worker threads. */
  get threads(): Worker[] {
    return [...this.workers].map((worker) => worker.thread);
  }

  /** Delivers the events the worker sends for `callId` until the returned function is called. */
  listen(callId: string, events: CallEvents): () => void {
    this.listeners.set(callId, events);
    return () => this.listeners.delete(callId);
  }

  /**
   * Runs one task within its limits. Never throws, but for a task no worker can be sent (the
   * host's arguments hold a function, say) or whose signal cannot be read or listened to: how the
   * task ended is the outcome.
   */
  run<T extends PoolTask>(task: T, limits: TaskLimits): Promise<TaskOutcome<TaskReplies[T['kind']]>> {
    if (this.closed) return Promise.resolve({ kind: 'cancelled' });
    const row = this.rows.acquire();
    if (row === undefined) return Promise.resolve({ kind: 'busy' });
    const job = new Job(this, task, row, limits);
    const { signal } = limits;
    this.active.add(job);
    // Referenced, like a timer per call would be: a call in flight keeps the process alive.
    this.deadlineSweep ??= setInterval(() => this.sweepDeadlines(), DEADLINE_SWEEP_MS);
    try {
      if (signal?.aborted) job.end({ stopped: 'cancelled' });
      else {
        signal?.addEventListener('abort', job, { once: true });
        this.queue.push(job);
        this.dispatch();
      }
    } catch (error) {
      // A signal that cannot be read or listened to (a caller's own object): the task does not run.
      job.end({ unsent: error instanceof Error ? error : new Error(String(error)) });
    }
    return this.outcome(task, job);
  }

  /**
   * How `job` ended, once it has: its row and its signal given back first. A function of its own,
   * not the second half of `run`: the first burst of calls deoptimizes `run`'s hand-out (a branch
   * calls one at a time never take), and V8 then compiles only that again, not this with it.
   */
  private async outcome<T extends PoolTask>(task: T, job: Job): Promise<TaskOutcome<TaskReplies[T['kind']]>> {
    const end = await job.ended;
    const { row, limits: { signal } } = job;
    this.active.delete(job);
    if (this.active.size === 0) this.workBehindMs = 0;
    this.releaseRow(row);
    try {
      signal?.removeEventListener('abort', job);
    } catch {
      // One that cannot stop listening keeps only this ended job, which ignores a later abort.
    }
    if (task.kind === 'run' && this.retired.size > 0) {
      const retired = this.retired.get(task.context.callId);
      this.retired.delete(task.context.callId);
      if (retired !== undefined) return { kind: 'done', value: replyTo(task, retired) };
    }
    if ('unsent' in end) throw end.unsent;
    if ('reply' in end) return { kind: 'done', value: replyTo(task, end.reply) };
    if ('stopped' in end) return { kind: end.stopped };
    return { kind: 'crashed', message: 'error' in end ? end.error : end.crashed };
  }

  /**
   * Starts a worker now, ahead of the first task: it loads its modules and makes its Lua state,
   * which then waits for that task (loading the config here too measured no faster, beside the
   * inspect worker's own).
   */
  warm(): void {
    if (this.closed || this.workers.size + this.gateWaits > 0) return;
    // Not through the start gate: a warmed worker may wait long for its first task, and would
    // hold its place all that time.
    this.startWorker(this.workerConfig, false);
  }

  /** Ends `job` early: it leaves the queue or its worker's port, or its worker is terminated. */
  stop(job: Job, why: 'timeout' | 'cancelled'): void {
    if (job.isEnded) return;
    const { worker } = job;
    if (worker === undefined) {
      const index = this.queue.indexOf(job);
      if (index >= 0) this.queue.splice(index, 1);
      this.countQueued();
      job.end({ stopped: why });
    } else if (worker.task !== job) {
      this.stopBehind(worker, job, why);
    } else {
      this.stopFirst(worker, job, why);
    }
  }

  /** Stops a job waiting in `worker`'s port behind another: withdrawn, or, once claimed, stopped when it becomes first. */
  private stopBehind(worker: PoolWorker, job: Job, why: 'timeout' | 'cancelled'): void {
    if (this.withdraw(worker, job)) return job.end({ stopped: why });
    // Claimed: the task ahead of it has been answered, the answer is on its way; its worker is
    // terminated once it has come, not to lose it.
    job.stopWhenFirst ??= why;
  }

  /** Stops `worker`'s first job: its worker is terminated, unless it has finished already. */
  private stopFirst(worker: PoolWorker, job: Job, why: 'timeout' | 'cancelled'): void {
    this.queue.unshift(...this.withdrawWaiting(worker));
    if (worker.tasks.length > 1) {
      // Its worker claimed a task behind it: it has finished, its answer is on its way, which a
      // timeout lets end it; a cancelled one ends now (its answer is dropped when it comes).
      if (why === 'cancelled') job.end({ stopped: why });
    } else {
      this.dismiss(worker);
      job.end({ stopped: why });
    }
    // Tasks withdrawn, or its worker gone from the pool now, not when its thread exits (one stuck
    // in a system call never may): a job waiting gets a worker at once.
    this.dispatch();
  }


  /**
   * Hands waiting jobs to free workers, then to the ports of quick busy workers, and starts
   * workers for the jobs left waiting when no quick worker will take them soon, or when its
   * workers are kept busy (see keptBusy); the host's count of waiting jobs follows.
   */
  private dispatch(): void {
    this.handOut();
    this.countQueued();
  }

  /** Hands out and starts workers for dispatch(). */
  private handOut(): void {
    // A closing pool hands out nothing: a task withdrawn from a port while close() stops every
    // task would otherwise run on a worker still free.
    if (this.closed) return;
    while (this.queue.length > 0 && this.free.length > 0) {
      const worker = this.free.pop()!;
      if (!this.hand(worker, this.queue.shift()!)) this.free.push(worker);
    }
    if (this.queue.length > 0) {
      const now = performance.now();
      // Workers kept busy with room for another: the tasks wait for a worker started for them, not in a port.
      const startsOne = this.keptBusy(now) && this.workers.size + this.gateWaits < this.options.maxThreads;
      for (let worker = startsOne ? undefined : this.quickWorker(now); worker !== undefined && this.queue.length > 0; worker = this.quickWorker(now)) {
        this.hand(worker, this.queue.shift()!);
      }
      if (this.queue.length > 0 && !startsOne && this.drainsSoon(now)) return this.watchQueuedIn();
      while (this.queue.length > this.gateWaits && this.workers.size + this.gateWaits < this.options.maxThreads) {
        this.requestStart();
      }
    }
    if (this.portsHoldTasks()) this.watchQueuedIn();
  }

  /**
   * Looks at the waiting tasks again in LOOK_MS (see watchQueued): as long as tasks wait in
   * a port or are held back from starting a worker, even with none left in the queue, since the
   * task ahead of them may turn out slow only after this look.
   */
  private watchQueuedIn(): void {
    if (this.queuedWatch === undefined) this.queuedWatch = setTimeout(() => this.watchQueued(), LOOK_MS).unref();
  }

  /** Whether tasks wait in a worker's port behind the one it runs. */
  private portsHoldTasks(): boolean {
    // No return from inside the loop: leaving a for-of early runs code the loop never ran while
    // calls came one at a time, and V8 would drop this optimized code at the first burst.
    let held = false;
    for (const worker of this.workers) held ||= worker.tasks.length > 1;
    return held;
  }

  /** Hands `job` to `worker`, after the tasks it holds; false (the job ended) when the task cannot be sent. */
  private hand(worker: PoolWorker, job: Job): boolean {
    this.lastTicket = this.lastTicket >= MAX_TICKET ? 1 : this.lastTicket + 1;
    job.ticket = this.lastTicket;
    this.rows.table.offer(job.row, job.ticket);
    const first = worker.tasks.length === 0;
    // Read before the task goes: a worker waiting awake takes it at once and stops waiting.
    const awake = first && worker.isWaitingAwake;
    const unsent = worker.run({ ...job.task, row: job.row, ticket: job.ticket }, job);
    if (unsent !== undefined) {
      job.end({ unsent });
      return false;
    }
    job.worker = worker;
    if (first) {
      job.handedAt = Date.now();
      worker.firstTaskSince = performance.now();
      this.countBusy(worker, true);
      // Its answer is awaited awake, on a CPU the busy workers leave spare, if the worker is awake
      // (running, so on another CPU than this thread: a worker woken now may be put on this
      // thread's CPU, where it would wait for the thread to stop turning before it could answer)
      // and its answers seldom come later than the wait.
      if (awake && worker.lateAnswers < MOST_LATE_ANSWERS && this.cpuSlots.spareForWaiting()) this.hotLoop.keep(() => worker.task === job);
    }
    return true;
  }

  /**
   * Brings the host's count of jobs waiting in its pools' queues up to date with this queue (see
   * CpuSlots.spareForWaiting): after dispatch, and wherever else the queue changes. A change
   * not told is told with the next.
   */
  private countQueued(): void {
    const change = this.queue.length - this.countedQueued;
    this.countedQueued = this.queue.length;
    this.cpuSlots.countQueuedJobs(change);
  }

  /** Keeps the host's count of workers holding tasks (see CpuSlots.spareForWaiting). */
  private countBusy(worker: PoolWorker, busy: boolean): void {
    if (worker.countedBusy === busy) return;
    worker.countedBusy = busy;
    this.cpuSlots.countBusyWorker(busy ? 1 : -1);
  }

  /**
   * The busy worker with the fewest tasks whose port may take one more: its tasks flow (see
   * flows), it holds fewer than WORKER_TASK_DEPTH, and they would not keep the new one waiting
   * QUEUED_WORK_MS, by what its recent ones took.
   */
  private quickWorker(now: number): PoolWorker | undefined {
    let quickest: PoolWorker | undefined;
    for (const worker of this.workers) {
      const held = worker.tasks.length;
      const quick = this.flows(worker, now) && held < WORKER_TASK_DEPTH && worker.taskCostMs * held < QUEUED_WORK_MS;
      if (quick && (quickest === undefined || held < quickest.tasks.length)) quickest = worker;
    }
    return quickest;
  }

  /** A busy worker whose tasks flow: its start is behind it, and its current task has not held it up (see heldUp). */
  private flows(worker: PoolWorker, now: number): boolean {
    return worker.hasAnswered && !worker.isStopping && worker.tasks.length > 0 && !this.heldUp(worker, now);
  }

  /**
   * Whether `worker`'s current task has held it QUEUED_WORK_MS, so that tasks waiting in its port
   * should go to another worker. Its current task is the last it picked up, begun when picked up
   * or when the pool last heard from the worker if later; a worker with none (none picked up since
   * the pool last heard from it, or the last one ended) is between tasks, not held up by one, and
   * its tasks stay. Its thread is looked at from LOOK_MS before QUEUED_WORK_MS (see
   * worker-stall.ts): a worker the machine only kept off the CPUs is not held up, and neither is
   * one whose look is not judged yet.
   */
  private heldUp(worker: PoolWorker, now: number): boolean {
    if (now - worker.firstTaskSince < QUEUED_WORK_MS - LOOK_MS) return false;
    // Before its first answer, its start: the clock alone says.
    if (!worker.hasAnswered) return now - worker.firstTaskSince >= QUEUED_WORK_MS;
    // The worker may have answered tasks whose answers this thread has yet to read. It picks its
    // tasks up in order, so those picked up are the first few: the scan stops at the first not.
    let current: Job | undefined;
    for (let i = 0; i < worker.tasks.length; i++) {
      const job = worker.tasks[i] as Job;
      if (!this.rows.table.isStamped(job.row, 'picked')) break;
      current = job;
    }
    if (current === undefined || this.rows.table.threadEnded(current.row)) return false;
    // A stamp ahead of the clock (set back since) says nothing of when.
    const pickedAt = this.rows.table.stampOf(current.row, 'picked')!;
    const wallNow = Date.now();
    const since = pickedAt <= wallNow ? Math.max(worker.firstTaskSince, now - (wallNow - pickedAt)) : worker.firstTaskSince;
    if (now - since < QUEUED_WORK_MS - LOOK_MS) return false;
    const heldUp = worker.stall.isHeldUp(worker.threadId, current.ticket, worker.firstTaskSince, now);
    return heldUp && now - since >= QUEUED_WORK_MS;
  }

  /** Whether a worker whose tasks flow would get through the waiting ones in less than WORTH_A_START_MS, by what its tasks take. */
  private drainsSoon(now: number): boolean {
    for (const worker of this.workers) {
      if (this.flows(worker, now) && worker.taskCostMs * (worker.tasks.length + this.queue.length) < WORTH_A_START_MS) return true;
    }
    return false;
  }

  /**
   * Whether its workers have been kept busy, tasks waiting behind their work, for WORTH_A_START_MS
   * of work and BUSY_BEHIND_SHARE of the time since (two callers each calling again at once, say).
   */
  private keptBusy(now: number): boolean {
    return this.workBehindMs >= WORTH_A_START_MS && this.workBehindMs >= BUSY_BEHIND_SHARE * (now - this.behindSince);
  }

  /** Tasks waiting in the port of a worker its current task has held up (see heldUp) go back to the queue, for other workers. */
  private watchQueued(): void {
    this.queuedWatch = undefined;
    const now = performance.now();
    const back: Job[] = [];
    for (const worker of this.workers) {
      if (worker.tasks.length > 1 && this.heldUp(worker, now)) back.push(...this.withdrawWaiting(worker));
    }
    this.queue.unshift(...back);
    this.dispatch();
  }

  /** Withdraws the tasks waiting in `worker`'s port (all but its first) that it has not claimed; returns their jobs, in order. */
  private withdrawWaiting(worker: PoolWorker): Job[] {
    const withdrawn: Job[] = [];
    for (const job of worker.tasks.slice(1) as Job[]) {
      if (!job.isEnded && this.withdraw(worker, job)) withdrawn.push(job);
    }
    return withdrawn;
  }

  /** Takes `job` back from `worker`'s port unless the worker claimed it; the job is the pool's again, unhanded. */
  private withdraw(worker: PoolWorker, job: Job): boolean {
    if (!this.rows.table.withdraw(job.row, job.ticket)) return false;
    worker.takeBack(job);
    job.worker = undefined;
    job.handedAt = undefined;
    return true;
  }

  /** Waits at the start gate, then starts a worker if one is still wanted. */
  private requestStart(): void {
    this.gateWaits++;
    const entry = WORKER_STARTS.enter();
    void entry.admitted.then(() => {
      this.gateWaits--;
      const wanted = !this.closed && this.queue.length > 0 && this.workers.size < this.options.maxThreads;
      if (!wanted) return WORKER_STARTS.leave();
      // One of a burst of starts (it waited for its place, or others wait): it runs lowered from its start.
      const workerData = entry.immediate && !WORKER_STARTS.crowded ? this.workerConfig : { ...this.workerConfig, startLowered: true as const };
      this.startWorker(workerData, true);
    });
  }

  /** Starts a worker, free for the next waiting job at once; `startPlace`: it holds a place at the start gate. */
  private startWorker(workerData: WorkerConfig, startPlace: boolean): void {
    this.workBehindMs = 0;
    const worker = new PoolWorker(workerData, this);
    worker.startPlace = startPlace;
    this.workers.add(worker);
    this.options.threads.started(worker.thread);
    this.release(worker);
  }

  up(worker: PoolWorker, port: MessagePort): void {
    this.startFailures = 0;
    this.settleCameUp();
    this.exposeEvents(port, worker);
    // Without a task (the one it was started for could not be sent), its start is over.
    if (worker.task === undefined) this.leaveStartGate(worker);
  }

  started(worker: PoolWorker): void {
    this.leaveStartGate(worker);
  }

  done(worker: PoolWorker, owner: object, answer: TaskAnswer): void {
    const job = owner as Job;
    // Its first task is over: whatever the worker had to load has loaded.
    this.leaveStartGate(worker);
    this.answered(worker, answer.tookMs);
    job.end('reply' in answer ? { reply: answer.reply } : { error: answer.error });
    if (!this.workers.has(worker)) return;
    const next = worker.task as Job | undefined;
    if (next === undefined) return this.release(worker);
    next.handedAt ??= Date.now();
    if (next.stopWhenFirst !== undefined) this.stop(next, next.stopWhenFirst);
  }

  /**
   * `worker` answered its first task, which took it `tookMs`: that joins the worker's average
   * (but for the task that made its Lua state; a slow one counts as QUEUED_WORK_MS, what keeps
   * tasks out of its port already, and one far above the average only so far: see
   * COST_SAMPLE_FLOOR_MS), and its work behind which tasks waited (see keptBusy); whether the
   * answer came later than a wait awake for it would last joins its share of late answers; the
   * next task begins.
   */
  private answered(worker: PoolWorker, tookMs: number): void {
    const now = performance.now();
    if (worker.hasAnswered) {
      const sample = Math.min(tookMs, QUEUED_WORK_MS, Math.max(4 * worker.taskCostMs, COST_SAMPLE_FLOOR_MS));
      worker.taskCostMs += (sample - worker.taskCostMs) * COST_WEIGHT;
      // Only work with tasks waiting behind it counts. Counted the same way with none (as zero
      // work), so that code V8 optimized while calls came one at a time holds when they pile up.
      const behindMs = worker.tasks.length > 0 || this.queue.length > 0 ? tookMs : 0;
      if (this.workBehindMs === 0) this.behindSince = now - behindMs;
      this.workBehindMs += behindMs;
    }
    worker.lateAnswers += ((now - worker.firstTaskSince > ANSWER_WAIT_MS ? 1 : 0) - worker.lateAnswers) * LATE_ANSWER_WEIGHT;
    worker.hasAnswered = true;
    worker.firstTaskSince = now;
  }

  gone(worker: PoolWorker, why: string): void {
    const reason = worker.isUp ? why : `a worker could not start: ${why}`;
    // Tasks it had not claimed wait again; the one it ran (and any it claimed since) crashed with it.
    this.queue.unshift(...this.withdrawWaiting(worker));
    const lost = worker.tasks.splice(0) as Job[];
    if (this.workers.has(worker)) {
      this.remove(worker);
      if (!worker.isUp && ++this.startFailures >= START_FAILURE_LIMIT) this.failWaiting(reason);
    }
    for (const job of lost) job.end({ crashed: reason });
    // A worker gone — after an abort, a crash, or while still starting — may leave jobs waiting.
    this.dispatch();
  }

  /** A worker is free: it takes the next waiting job, or waits idle to be reaped. */
  private release(worker: PoolWorker): void {
    this.countBusy(worker, false);
    const now = performance.now();
    worker.idle(now);
    this.free.push(worker);
    this.dispatch();
    if (worker.task === undefined && this.idleReaper === undefined) this.reapIn(this.options.idleTimeoutMs);
  }

  /** Ends the workers idle for the idle timeout; checks again when the next one will have been. */
  private reapIdle(): void {
    this.idleReaper = undefined;
    const now = performance.now();
    let nextDue = Infinity;
    for (const worker of [...this.free]) {
      const due = worker.idleSince + this.options.idleTimeoutMs;
      if (due <= now) this.dismiss(worker);
      else nextDue = Math.min(nextDue, due);
    }
    if (nextDue !== Infinity) this.reapIn(nextDue - now);
  }

  /** Reaps idle workers in `delayMs`, or sooner (to look again) past what a timer keeps. */
  private reapIn(delayMs: number): void {
    this.idleReaper = setTimeout(() => this.reapIdle(), Math.min(delayMs, MAX_TIMER_MS)).unref();
  }

  /** Terminates a worker, which leaves the pool at once (a thread stuck in a system call may exit late). */
  private dismiss(worker: PoolWorker): void {
    // Tasks waiting in its port go back to the queue now, not when its thread has exited; those it
    // claimed and was told to stop end now with that stop (its answers are no longer read).
    this.queue.unshift(...this.withdrawWaiting(worker));
    for (const job of worker.tasks as Job[]) if (job.stopWhenFirst !== undefined) job.end({ stopped: job.stopWhenFirst });
    if (this.workers.has(worker)) this.remove(worker);
    this.options.threads.stopped(worker.id);
    worker.stop();
  }

  private remove(worker: PoolWorker): void {
    this.countBusy(worker, false);
    this.workers.delete(worker);
    const index = this.free.indexOf(worker);
    if (index >= 0) this.free.splice(index, 1);
    this.leaveStartGate(worker);
  }

  /** Workers fail to start again and again: the jobs waiting for one fail with why. */
  private failWaiting(why: string): void {
    this.startFailures = 0;
    const failed = this.queue.splice(0);
    this.countQueued();
    for (const job of failed) job.end({ crashed: why });
  }

  private leaveStartGate(worker: PoolWorker): void {
    if (!worker.startPlace) return;
    worker.startPlace = false;
    WORKER_STARTS.leave();
  }

  /**
   * Frees a finished task's row: ends every process the task started (whatever its outcome), and
   * gives up its CPU turn if its worker could not (terminated, crashed).
   */
  private releaseRow(row: number): void {
    this.rows.table.endTask(row);
    this.cpuSlots.leave(this.rows.table.words, this.rows.table.seat(row));
    this.rows.release(row);
  }

  /**
   * Stops the tasks past their deadline, reading each row's stamps: a task still waiting for a
   * worker waits on; one being loaded for gets the cold-start allowance (counted from when its
   * worker was handed it, until that worker picks it up: a thread stuck loading its own code never
   * does); else its own time runs from when it started. One interval serves every task (a timer
   * per call cost a warm call more than the check does), and ends once none is left.
   */
  private sweepDeadlines(): void {
    if (this.active.size === 0) {
      clearInterval(this.deadlineSweep);
      this.deadlineSweep = undefined;
      return;
    }
    const now = Date.now();
    for (const job of this.active) {
      const { timeoutMs, coldStartMs = 0 } = job.limits;
      const started = this.rows.table.stampOf(job.row, 'started');
      const picked = this.rows.table.stampOf(job.row, 'picked');
      lowerLongTask(this.rows.table, job.row, started, now, job);
      const loadingSince = picked ?? job.handedAt;
      const deadline = started !== undefined ? started + timeoutMs : loadingSince !== undefined ? loadingSince + coldStartMs + timeoutMs : undefined;
      if (deadline !== undefined && now >= deadline) this.stop(job, 'timeout');
    }
  }

  stats(): PoolStats {
    const queued = this.waiting();
    return { alive: this.workers.size, busy: this.active.size - queued, queued };
  }

  /**
   * Cancels every task in flight (they end as `cancelled`), then stops the workers, waiting at
   * most CLOSE_WAIT_MS for them to exit: a thread that cannot be stopped is counted, not awaited.
   */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.active) this.stop(job, 'cancelled');
    clearInterval(this.deadlineSweep);
    this.deadlineSweep = undefined;
    clearTimeout(this.idleReaper);
    clearTimeout(this.queuedWatch);
    const exits = [...this.workers].map((worker) => new Promise<void>((resolve) => worker.thread.once('exit', () => resolve())));
    for (const worker of [...this.workers]) this.dismiss(worker);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([Promise.all(exits), waited]);
    clearTimeout(timer);
  }

  private exposeEvents(port: MessagePort, worker: PoolWorker): void {
    const router: WorkerEvents = {
      log: (callId, texts) => {
        const listener = this.listeners.get(callId);
        if (listener) for (const text of texts) listener.log(text);
      },
      title: (callId, text) => this.listeners.get(callId)?.title(text),
      snapshot: (callId, bytes) => this.listeners.get(callId)?.snapshot(bytes),
      // Kept only for a call of this worker's not yet ended (the one ahead of it may have ended,
      // its answer still on the way): one already ended (its deadline came first) never reads it.
      retire: (callId, reply) => {
        const running = (worker.tasks as Job[]).some((job) => !job.isEnded && job.task.kind === 'run' && job.task.context.callId === callId);
        if (running) this.retired.set(callId, reply);
      },
    };
    expose(router, nodeEndpoint(port));
    // The port must not keep the host alive once its worker is gone.
    port.unref();
  }
}
