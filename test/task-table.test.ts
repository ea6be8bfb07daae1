// A pool's task table, the one class both threads use on the same shared memory: what one side
// writes in a row the other reads, a row handed out again starts clean with a new tag, and ending
// a task clears its process groups so the other side has nothing left to end.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { MAX_LIVE_GROUPS, TASK_ROW_WORDS, TaskTable } from '../shared/task-table.js';

/** The worker's view of the core's table: the same buffer and epoch, as workerData carries them. */
const workerSide = (table: TaskTable): TaskTable => new TaskTable(table.buffer, table.epochMs);

/** The pid of a process that has already exited (so recording it touches nothing alive). */
const goneProcess = (): number => spawnSync('true').pid;

test('stamps a worker writes are read by the core, in Date.now() milliseconds', () => {
  const core = TaskTable.create(4);
  const before = Date.now();
  assert.equal(core.stampOf(2, 'picked'), undefined);
  workerSide(core).stamp(2, 'picked');
  const picked = core.stampOf(2, 'picked')!;
  assert.ok(picked >= before && picked <= Date.now(), `${picked}`);
  assert.equal(core.stampOf(2, 'started'), undefined);
  assert.equal(core.stampOf(1, 'picked'), undefined);
});

test('a table made weeks ago still reads its stamps right: 32-bit stamps are read against the time now', () => {
  for (const days of [24, 25, 49, 60, 400]) {
    const core = new TaskTable(TaskTable.create(1).buffer, Date.now() - days * 86_400_000);
    const before = Date.now();
    workerSide(core).stamp(0, 'started');
    const started = core.stampOf(0, 'started')!;
    assert.ok(started >= before && started <= Date.now(), `a table ${days} days old read ${started - before} ms off`);
  }
});

test('the thread a worker names for its task is taken by the core once', () => {
  const core = TaskTable.create(2);
  assert.equal(core.takeThread(1), 0, 'no thread named yet');
  workerSide(core).setThread(1, 4242);
  assert.equal(core.takeThread(0), 0, 'another row names none');
  assert.equal(core.takeThread(1), 4242);
  assert.equal(core.takeThread(1), 0, 'taken already');
});

test('a task its worker says has ended names no thread to lower', () => {
  const core = TaskTable.create(2);
  workerSide(core).setThread(1, 4242);
  workerSide(core).endThread(1);
  assert.equal(core.takeThread(1), 0, 'an ended task has no thread to lower');
});

test('the worker that picked a task up is named by its Node thread id, thread 0 included', () => {
  const core = TaskTable.create(2);
  assert.equal(core.workerOf(1), undefined);
  workerSide(core).setWorker(1, 0);
  assert.equal(core.workerOf(1), 0);
  workerSide(core).setWorker(0, 17);
  assert.equal(core.workerOf(0), 17);
});

test('a row reset for a new task: no stamps, no thread, no groups, a new process tag', () => {
  const table = TaskTable.create(1);
  table.reset(0);
  const firstTag = table.tag(0);
  table.stamp(0, 'started');
  table.setThread(0, 4242);
  table.setWorker(0, 3);
  assert.ok(table.record(0, goneProcess()));
  table.reset(0);
  assert.equal(table.stampOf(0, 'started'), undefined);
  assert.equal(table.takeThread(0), 0);
  assert.equal(table.workerOf(0), undefined);
  assert.notEqual(table.tag(0), firstTag);
  assert.equal(table.endTask(0, true), 0, 'a reset row has no groups to end');
});

test('tables made in the same millisecond give their tasks different process tags', () => {
  const first = TaskTable.create(1);
  const second = new TaskTable(new SharedArrayBuffer(first.buffer.byteLength), first.epochMs);
  first.reset(0);
  second.reset(0);
  assert.notEqual(first.tag(0), second.tag(0));
});

test('a slot whose group is gone is reused, so a task can start more than MAX_LIVE_GROUPS commands in all', () => {
  const table = TaskTable.create(1);
  for (let i = 0; i < MAX_LIVE_GROUPS + 5; i++) assert.ok(table.record(0, goneProcess()), `command ${i}`);
});

test('a slot whose group is alive is kept: past MAX_LIVE_GROUPS live groups a command is refused', async () => {
  const table = TaskTable.create(1);
  const leader = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  const pid = leader.pid!;
  try {
    for (let i = 0; i < MAX_LIVE_GROUPS; i++) assert.ok(table.record(0, pid), `command ${i}`);
    assert.equal(table.record(0, goneProcess()), false);
  } finally {
    leader.kill('SIGKILL');
  }
  await once(leader, 'exit');
  assert.ok(table.record(0, goneProcess()));
});

test('ending a task on one side clears its groups, so the other side finds none', () => {
  const core = TaskTable.create(1);
  const worker = workerSide(core);
  // The pid words are the row's last MAX_LIVE_GROUPS words.
  const pidWords = new Int32Array(core.buffer).subarray(TASK_ROW_WORDS - MAX_LIVE_GROUPS, TASK_ROW_WORDS);
  const pid = goneProcess();
  worker.record(0, pid);
  assert.ok(pidWords.includes(pid));
  worker.endTask(0, true);
  assert.ok(
    pidWords.every((word) => word === 0),
    `${[...pidWords].join(',')}`,
  );
});
