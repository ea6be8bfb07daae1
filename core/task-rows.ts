// Hands out the rows of a pool's task table (shared/task-table.ts): one per task waiting or
// running, at most `capacity`. A row goes back only once no worker can write to it any more (its
// task has ended), and is reset, with a fresh tag word, when handed out again.
import { randomInt } from 'node:crypto';
import { TaskTable } from '../shared/task-table.js';

export class TaskRows {
  readonly table: TaskTable;
  private readonly free: number[] = [];
  private used = 0;

  constructor(capacity: number) {
    this.table = TaskTable.create(capacity);
  }

  /** A reset row for one task, or undefined when every row is taken. */
  acquire(): number | undefined {
    const row = this.free.pop() ?? (this.used < this.table.rows ? this.used++ : undefined);
    if (row !== undefined) this.table.reset(row, randomInt(1, 2 ** 31));
    return row;
  }

  release(row: number): void {
    this.free.push(row);
  }
}
