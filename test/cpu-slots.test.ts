// CPU slots: a fair queue in shared memory. Turns go in ticket order; a seat that gives up its
// ticket, before or after it was admitted, passes its turn on exactly once; leaving is safe to
// repeat (the core cleans up after workers it terminated); counters that wrap past 2^31 keep the
// order; and under real threads no more seats hold a slot than there are slots.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { CpuSlots, SEAT_HOLDING, SEAT_IDLE, SEAT_WAITING, SEAT_WORDS, seatState } from '../shared/cpu-slots.js';
import { ROOT } from './helpers.js';

/** Shared words with room for `count` seats, and each seat's index in them (one word apart, as in a task table's rows). */
function seats(count: number): { words: Int32Array; all: number[] } {
  const stride = SEAT_WORDS + 1;
  const words = new Int32Array(new SharedArrayBuffer(count * stride * Int32Array.BYTES_PER_ELEMENT));
  return { words, all: Array.from({ length: count }, (_, i) => i * stride + 1) };
}

function holding(slots: CpuSlots, words: Int32Array, all: number[]): number[] {
  all.forEach((seat) => slots.tryTake(words, seat));
  return all.flatMap((seat, i) => (seatState(words, seat) === SEAT_HOLDING ? [i] : []));
}

describe('CpuSlots', () => {
  test('turns are given in the order the seats queued', () => {
    const slots = CpuSlots.create(2);
    const { words, all } = seats(4);
    all.forEach((seat) => slots.enqueue(words, seat));
    assert.deepEqual(holding(slots, words, all), [0, 1]);
    assert.deepEqual(slots.stats(), { slots: 2, running: 2, waiting: 2 });
    slots.leave(words, all[0]!);
    assert.deepEqual(holding(slots, words, all), [1, 2]);
    slots.leave(words, all[1]!);
    assert.deepEqual(holding(slots, words, all), [2, 3]);
    assert.deepEqual(
      Array.from(words.filter((_, index) => index % (SEAT_WORDS + 1) === 0)),
      [0, 0, 0, 0],
      'no word beside a seat is written',
    );
    assert.ok(!slots.contended());
  });

  test('a ticket given up before its turn is passed over', () => {
    const slots = CpuSlots.create(1);
    const { words, all } = seats(3);
    const [a, b, c] = all as [number, number, number];
    all.forEach((seat) => slots.enqueue(words, seat));
    assert.ok(slots.tryTake(words, a));
    slots.leave(words, b);
    assert.equal(seatState(words, b), SEAT_IDLE);
    slots.leave(words, a);
    assert.ok(slots.tryTake(words, c));
    assert.deepEqual(slots.stats(), { slots: 1, running: 1, waiting: 0 });
  });

  test('a ticket given up after it was admitted, but before it was taken, passes the turn on', () => {
    const slots = CpuSlots.create(1);
    const { words, all } = seats(3);
    const [a, b, c] = all as [number, number, number];
    all.forEach((seat) => slots.enqueue(words, seat));
    assert.ok(slots.tryTake(words, a));
    slots.leave(words, a);
    // b's turn has come, but its worker is gone: the core leaves for it.
    slots.leave(words, b);
    assert.ok(slots.tryTake(words, c));
  });

  test('leaving twice (the worker, then the core cleaning up) releases once', () => {
    const slots = CpuSlots.create(1);
    const { words, all } = seats(3);
    const [a] = all as [number];
    all.forEach((seat) => slots.enqueue(words, seat));
    assert.ok(slots.tryTake(words, a));
    slots.leave(words, a);
    slots.leave(words, a);
    assert.deepEqual(holding(slots, words, all), [1]);
    assert.deepEqual(slots.stats(), { slots: 1, running: 1, waiting: 1 });
  });

  test('a seat left idle by leaving can queue again, at the back', () => {
    const slots = CpuSlots.create(1);
    const { words, all } = seats(2);
    const [a, b] = all as [number, number];
    slots.enqueue(words, a);
    slots.enqueue(words, b);
    assert.ok(slots.tryTake(words, a));
    slots.leave(words, a);
    slots.enqueue(words, a);
    assert.equal(seatState(words, a), SEAT_WAITING);
    assert.deepEqual(holding(slots, words, [a, b]), [1]);
  });

  test('the order holds when the ticket counters wrap past 2^31', () => {
    const slots = CpuSlots.create(1);
    const counters = new Int32Array(slots.buffer);
    counters[0] = 2 ** 31 - 2;
    counters[1] = 2 ** 31 - 2;
    const { words, all } = seats(5);
    all.forEach((seat) => slots.enqueue(words, seat));
    const order: number[] = [];
    for (let round = 0; round < all.length; round++) {
      const [holder] = holding(slots, words, all);
      assert.notEqual(holder, undefined);
      order.push(holder!);
      slots.leave(words, all[holder!]!);
    }
    assert.deepEqual(order, [0, 1, 2, 3, 4]);
    assert.deepEqual(slots.stats(), { slots: 1, running: 0, waiting: 0 });
  });

  test(
    'under real threads, no more seats hold a slot than there are slots, and every seat gets its turns',
    { timeout: 60_000 },
    async () => {
      const slots = CpuSlots.create(2);
      const threads = 6;
      const rounds = 300;
      // Word 0: seats holding now; word 1: the most ever seen at once.
      const probe = new Int32Array(new SharedArrayBuffer(8));
      const { words, all } = seats(threads);
      const script = join(ROOT, 'dist', 'test', 'cpu-slots-thread.js');
      const finished = await Promise.all(
        all.map(
          (seat, i) =>
            new Promise<number>((resolve, reject) => {
              const worker = new Worker(script, {
                workerData: { slots: slots.buffer, seats: words.buffer, seat, probe, rounds, giveUpEvery: i + 2 },
              });
              worker.once('message', resolve);
              worker.once('error', reject);
            }),
        ),
      );
      assert.ok(
        finished.every((turns) => turns > 0),
        `turns taken per thread: ${finished.join(', ')}`,
      );
      assert.ok(probe[1]! <= 2, `${probe[1]} seats held a slot at once`);
      assert.deepEqual(slots.stats(), { slots: 2, running: 0, waiting: 0 });
    },
  );
});
