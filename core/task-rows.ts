// Hands out the rows of a pool's task table (shared/task-table.ts): one per task waiting or
// running, at most `capacity`. A row goes back only once no worker can write to it any more (its
// task has ended), and is reset, with a fresh tag word, when handed out again.
import { TaskTable } from '../shared/task-table.js';

/** The largest tag word; the next starts again at 1. */
const MAX_TAG_WORD = 2 ** 31 - 1;
/**
 * The last tag word handed out, by any pool of this process: tables made in the same millisecond
 * share an epoch, so words counted per table would give two pools' tasks the same process tag.
 */
let lastTagWord = 0;

export class TaskRows {
  readonly table: TaskTable;
  /** Rows not in use, the last released on top (row 0 first of all). */
  private readonly free: number[];

  constructor(capacity: number) {
    this.table = TaskTable.create(capacity);
    this.free = Array.from({ length: capacity }, (_, index) => capacity - 1 - index);
  }

  /** A reset row for one task, or undefined when every row is taken. */
  acquire(): number | undefined {
    const row = this.free.pop();
    if (row === undefined) return undefined;
    lastTagWord = lastTagWord >= MAX_TAG_WORD ? 1 : lastTagWord + 1;
    this.table.reset(row, lastTagWord);
    return row;
  }

  release(row: number): void {
    this.free.push(row);
  }
}
