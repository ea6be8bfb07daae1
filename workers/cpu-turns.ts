// One worker's side of the CPU slots (shared/cpu-slots.ts). A call runs freely for FREE_RUN_MS;
// past that it queues for a turn at its next checkpoint (a `ctx:show` look, a count hook tick),
// hands the turn on after TURN_MS when others wait, and gives it up while it waits on a command.
// Behind a queue whose turns have not moved for STUCK_MS it runs ahead, taking its turn later.
import { FREE_RUN_MS } from '../shared/call-priority.js';
import { SEAT_HOLDING, SEAT_IDLE, SEAT_WAITING, seatState, type CpuSlots } from '../shared/cpu-slots.js';

const TURN_MS = 20;
const STUCK_MS = 200;
/** Longest single sleep while waiting, so a stuck queue is noticed. */
const NAP_MS = 25;

export class CpuTurns {
  /** The running call's task table words (null: no call runs), and its seat in them (see shared/cpu-slots.ts). */
  private words: Int32Array | null = null;
  private seat = 0;
  /** When the call's current stretch began: its start, the end of a wait, or its turn. */
  private since = 0;

  constructor(private readonly slots: CpuSlots) {}

  /** A call starts running, with its seat at `seat` in its task table's `words`. */
  begin(words: Int32Array, seat: number): void {
    this.words = words;
    this.seat = seat;
    this.since = performance.now();
  }

  /** A point where the call may queue, take its turn, or hand it on. */
  checkpoint(): void {
    const { words, seat } = this;
    if (words === null) return;
    const now = performance.now();
    switch (seatState(words, seat)) {
      case SEAT_IDLE:
        if (now - this.since < FREE_RUN_MS) return;
        this.slots.enqueue(words, seat);
        this.waitForTurn(words, seat);
        return;
      case SEAT_HOLDING:
        if (now - this.since < TURN_MS || !this.slots.contended()) return;
        this.slots.leave(words, seat);
        this.slots.enqueue(words, seat);
        this.waitForTurn(words, seat);
        return;
      case SEAT_WAITING:
        // Running ahead of a stuck queue: take the turn once it comes.
        if (this.slots.tryTake(words, seat)) this.since = now;
        return;
    }
  }

  /** Before the call waits (on a command): its turn goes to the next call. */
  pause(): void {
    if (this.words !== null) this.slots.leave(this.words, this.seat);
  }

  /** After a wait: the call runs freely again, and queues at a checkpoint as at its start. */
  resume(): void {
    this.since = performance.now();
  }

  /** The call has ended. */
  end(): void {
    this.pause();
    this.words = null;
  }

  private waitForTurn(words: Int32Array, seat: number): void {
    let releases = this.slots.releases();
    let quietSince = performance.now();
    while (!this.slots.tryTake(words, seat)) {
      // The core gave the ticket up: this worker is being terminated.
      if (seatState(words, seat) !== SEAT_WAITING) break;
      const now = performance.now();
      const current = this.slots.releases();
      if (current !== releases) {
        releases = current;
        quietSince = now;
      } else if (now - quietSince >= STUCK_MS) {
        break;
      }
      this.slots.waitTurn(words, seat, NAP_MS);
    }
    this.since = performance.now();
  }
}
