// A pool's task table: a SharedArrayBuffer the core makes per pool and gives its workers
// (WorkerConfig.taskTable), a row of TASK_ROW_WORDS Int32 words per task. The worker stamps when it
// picked the task up and when its own work began (the core's deadlines), names itself and the OS
// thread running it (the core stops the one, renices the other), keeps the task's CPU seat, and
// records each process group the task starts. Whichever side sees the task end — the worker before
// it replies, the core after terminating the worker — ends its processes from the row: its cgroup
// where the host has one (call-cgroup.ts), else by the sweep.
import { endCgroup, makeTaskCgroup, taskCgroup } from './call-cgroup.js';
import { SEAT_WORDS } from './cpu-slots.js';
import { exists, sweepTaskProcesses } from './process-sweep.js';

/** Words per row. */
export const TASK_ROW_WORDS = 68;
/**
 * A task's stamps, each in its word as ms since the table's epoch plus one, in 32 bits (0 until
 * set; see clockWord): when a worker picked the task up, and when its own work began (after a cold
 * worker loaded the config).
 */
const STAMP_WORDS = { picked: 0, started: 1 } as const;
/** The Linux thread id running the task, 0 when none is known or it has been taken, THREAD_ENDED once the task has ended. */
const ROW_THREAD = 2;
const THREAD_ENDED = -1;
/** The Node thread id of the worker that picked the task up, plus one (0 until then). */
const ROW_WORKER = 3;
/** The task's seat in the CPU slot queue (SEAT_WORDS words). */
const ROW_SEAT = 4;
/** A word counted for each task across the process's pools: with the row, it makes the task's process tag. */
const ROW_TAG = ROW_SEAT + SEAT_WORDS;
/** Where the processes the task started are (a Containment). */
const ROW_CONTAINMENT = ROW_TAG + 1;
/** The first of the pid words, up to the end of the row. */
const ROW_FIRST_PID = ROW_CONTAINMENT + 1;

/** The task has started no process / its processes are in its cgroup / they are not (the sweep ends them). */
const Containment = { None: 0, Cgroup: 1, Sweep: 2 } as const;

/** Most process groups one task may have alive at once (the pid words of its row). */
export const MAX_LIVE_GROUPS = TASK_ROW_WORDS - ROW_FIRST_PID;

/** The largest tag word; the next starts again at 1. */
const MAX_TAG_WORD = 2 ** 31 - 1;
/** The last tag word drawn by any table of this thread: two tables may share an epoch, so words are not counted per table. */
let lastTagWord = 0;

type TaskStamp = keyof typeof STAMP_WORDS;

export class TaskTable {
  /** Every row's words: a task's seat in the CPU slot queue is named by its index here (see seat()). */
  readonly words: Int32Array;

  /** `epochMs`: Date.now() when the table was made; stamps count from it. */
  constructor(
    readonly buffer: SharedArrayBuffer,
    readonly epochMs: number,
  ) {
    this.words = new Int32Array(buffer);
  }

  /** A table of `rows` zeroed rows, its epoch now. */
  static create(rows: number): TaskTable {
    return new TaskTable(new SharedArrayBuffer(rows * TASK_ROW_WORDS * Int32Array.BYTES_PER_ELEMENT), Date.now());
  }

  /** Readies `row` for a new task: every word zeroed, and a tag word no task of this process had before. */
  reset(row: number): void {
    lastTagWord = lastTagWord >= MAX_TAG_WORD ? 1 : lastTagWord + 1;
    this.words.fill(0, row * TASK_ROW_WORDS, (row + 1) * TASK_ROW_WORDS);
    Atomics.store(this.words, row * TASK_ROW_WORDS + ROW_TAG, lastTagWord);
  }

  /**
   * `now` as a stamp word: ms since the epoch plus one, wrapped to 32 bits (never 0). A stamp is read
   * back against the time now, so it is right for a task younger than 49 days, however old the table.
   */
  private clockWord(now: number): number {
    return (now - this.epochMs + 1) | 0 || 1;
  }

  /** Stamps `row` with the time now. */
  stamp(row: number, which: TaskStamp): void {
    Atomics.store(this.words, row * TASK_ROW_WORDS + STAMP_WORDS[which], this.clockWord(Date.now()));
  }

  /** A stamp of the task in `row` (Date.now() ms), or undefined until it is set. */
  stampOf(row: number, which: TaskStamp): number | undefined {
    const value = Atomics.load(this.words, row * TASK_ROW_WORDS + STAMP_WORDS[which]);
    if (value === 0) return undefined;
    const now = Date.now();
    return now - ((this.clockWord(now) - value) >>> 0);
  }

  /** The worker names `threadId` as the thread running the task in `row` (0: one the core cannot lower). */
  setThread(row: number, threadId: number): void {
    Atomics.store(this.words, row * TASK_ROW_WORDS + ROW_THREAD, threadId);
  }

  /** The worker says the task in `row` has ended, before it replies. */
  endThread(row: number): void {
    Atomics.store(this.words, row * TASK_ROW_WORDS + ROW_THREAD, THREAD_ENDED);
  }

  /** The worker that picked the task in `row` up names itself by its Node thread id. */
  setWorker(row: number, workerThreadId: number): void {
    Atomics.store(this.words, row * TASK_ROW_WORDS + ROW_WORKER, workerThreadId + 1);
  }

  /** The Node thread id of the worker that picked the task in `row` up, or undefined until one has. */
  workerOf(row: number): number | undefined {
    const word = Atomics.load(this.words, row * TASK_ROW_WORDS + ROW_WORKER);
    return word === 0 ? undefined : word - 1;
  }

  /** The thread running the task in `row`, once: 0 when none is known, it was taken, or the task has ended. */
  takeThread(row: number): number {
    const word = row * TASK_ROW_WORDS + ROW_THREAD;
    const threadId = Atomics.load(this.words, word);
    return threadId > 0 && Atomics.compareExchange(this.words, word, threadId, 0) === threadId ? threadId : 0;
  }

  /** The task's seat in the CPU slot queue: the index of its first word in `words`. */
  seat(row: number): number {
    return row * TASK_ROW_WORDS + ROW_SEAT;
  }

  /** The process tag of the task in `row` (PROCESS_TAG_VARIABLE's value), unique in the process and to its pid. */
  tag(row: number): string {
    return `${process.pid}.${this.epochMs}.${row}.${Atomics.load(this.words, row * TASK_ROW_WORDS + ROW_TAG) >>> 0}`;
  }

  /** Readies the task in `row` to start a process: the cgroup every process it starts must join, made at its first (null: none, its processes are swept). */
  cgroup(row: number): string | null {
    const word = row * TASK_ROW_WORDS + ROW_CONTAINMENT;
    const containment = Atomics.load(this.words, word);
    if (containment !== Containment.None) return containment === Containment.Cgroup ? taskCgroup(this.tag(row)) : null;
    const dir = makeTaskCgroup(this.tag(row));
    Atomics.store(this.words, word, dir === null ? Containment.Sweep : Containment.Cgroup);
    return dir;
  }

  /** Records process group `pid` in `row`; false when every pid word holds a group still alive. */
  record(row: number, pid: number): boolean {
    const first = row * TASK_ROW_WORDS + ROW_FIRST_PID;
    const end = (row + 1) * TASK_ROW_WORDS;
    for (let i = first; i < end; i++) {
      if (Atomics.compareExchange(this.words, i, 0, pid) === 0) return true;
    }
    for (let i = first; i < end; i++) {
      const previous = Atomics.load(this.words, i);
      if (!exists(-previous) && Atomics.compareExchange(this.words, i, previous, pid) === previous) return true;
    }
    return false;
  }

  /**
   * Ends every process the task in `row` started: its cgroup, or else its groups and what left them
   * (process-sweep.ts); then clears the row's record, so the other side finds nothing left to do.
   * `wait`: block until a cgroup's processes have exited and it is removed (see endCgroup). Returns
   * how many signals were sent (a cgroup's kill counts as one).
   */
  endTask(row: number, wait: boolean): number {
    const containmentWord = row * TASK_ROW_WORDS + ROW_CONTAINMENT;
    const containment = Atomics.load(this.words, containmentWord);
    const first = row * TASK_ROW_WORDS + ROW_FIRST_PID;
    const end = (row + 1) * TASK_ROW_WORDS;
    let sent = 0;
    if (containment === Containment.Cgroup) {
      endCgroup(taskCgroup(this.tag(row)), wait);
      sent = 1;
    } else {
      // Called after every task, most of which started no process: nothing is allocated for those.
      let groups: number[] | undefined;
      for (let i = first; i < end; i++) {
        const pid = this.words[i]!;
        if (pid !== 0) (groups ??= []).push(pid);
      }
      if (groups !== undefined)
        sent = sweepTaskProcesses(this.tag(row), groups, this.stampOf(row, 'picked') ?? this.epochMs);
    }
    Atomics.compareExchange(this.words, containmentWord, containment, Containment.None);
    for (let i = first; i < end; i++) Atomics.store(this.words, i, 0);
    return sent;
  }
}

/** One task's row, as the worker's natives see it while the task runs. */
export interface TaskRow {
  readonly table: TaskTable;
  readonly row: number;
}
