// A thread for the CpuSlots test: queues for a turn `rounds` times, counting the seats holding a
// slot at once while it holds one, and gives its ticket up instead every `giveUpEvery` rounds.
// Posts how many turns it took.
import { parentPort, workerData } from 'node:worker_threads';
import { CpuSlots, SEAT_WAITING, seatState } from '../shared/cpu-slots.js';

const {
  slots: buffer,
  seats,
  seat,
  probe,
  rounds,
  giveUpEvery,
} = workerData as {
  slots: SharedArrayBuffer;
  /** The words holding every thread's seat, and this thread's seat in them. */
  seats: SharedArrayBuffer;
  seat: number;
  probe: Int32Array;
  rounds: number;
  giveUpEvery: number;
};
const slots = new CpuSlots(buffer);
const words = new Int32Array(seats);
let turns = 0;
for (let round = 1; round <= rounds; round++) {
  slots.enqueue(words, seat);
  if (round % giveUpEvery === 0) {
    slots.leave(words, seat);
    continue;
  }
  while (!slots.tryTake(words, seat)) {
    if (seatState(words, seat) !== SEAT_WAITING) throw new Error('the seat stopped waiting on its own');
    slots.waitTurn(words, seat, 1000);
  }
  const now = Atomics.add(probe, 0, 1) + 1;
  let most = Atomics.load(probe, 1);
  while (now > most) most = Atomics.compareExchange(probe, 1, most, now) === most ? now : Atomics.load(probe, 1);
  // Hold the turn a little, like a call computing between checkpoints.
  const until = performance.now() + 0.05;
  while (performance.now() < until);
  Atomics.sub(probe, 0, 1);
  turns++;
  slots.leave(words, seat);
}
parentPort!.postMessage(turns);
