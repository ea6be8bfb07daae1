// CPU slots: how many calls may execute Lua at the same moment, host-wide, shared by every worker
// through one SharedArrayBuffer. Fifty CPU-bound workers on two cores make the main thread wait
// behind preempted workers at every lock the process shares (the dashboard stalls 100 ms and
// more); taking turns keeps the workers executing Lua near the number of CPUs.
// A fair ticket queue without locks: ticket t may hold a slot once t < slots + releases. Every
// release admits one more ticket; a ticket whose seat gave up is passed over by whoever sees it
// last, decided by one compare-and-swap. Counters are Int32 and wrap; tickets compare by difference.

const NEXT_TICKET = 0;
const RELEASES = 1;
const SLOT_COUNT = 2;
const HELD = 3;
const WAITING = 4;
const RING = 4096;
const TICKETS = 8;
const WAKES = TICKETS + RING;
const WORDS = WAKES + RING;

const OPEN = 0;
const ABANDONED = 1;

/** A seat's state word: how the task stands with the queue. */
export const SEAT_IDLE = 0;
export const SEAT_WAITING = 1;
export const SEAT_HOLDING = 2;
/** A seat is two Int32 words, its state and its ticket, named by its first word's index in a task table row. */
export const SEAT_WORDS = 2;
const STATE = 0;
const TICKET = 1;

/** SEAT_IDLE, SEAT_WAITING or SEAT_HOLDING: the state of the seat at `seat` in `words`. */
export function seatState(words: Int32Array, seat: number): number {
  return Atomics.load(words, seat + STATE);
}

export interface CpuSlotStats {
  slots: number;
  /** Seats holding a slot now. */
  running: number;
  /** Seats waiting for a slot (or running ahead of a stuck queue). */
  waiting: number;
}

export class CpuSlots {
  private readonly words: Int32Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.words = new Int32Array(buffer);
  }

  static create(slots: number): CpuSlots {
    const slotsBuffer = new SharedArrayBuffer(WORDS * Int32Array.BYTES_PER_ELEMENT);
    new Int32Array(slotsBuffer)[SLOT_COUNT] = slots;
    return new CpuSlots(slotsBuffer);
  }

  /** Puts the seat at `seat` in `words` in the queue (it must be idle). */
  enqueue(words: Int32Array, seat: number): void {
    // Straight-line code: V8 stops a terminated worker at a JavaScript function's entry or a loop's
    // back edge, never between these built-in calls, so a ticket is never taken without its seat.
    const ticket = Atomics.add(this.words, NEXT_TICKET, 1);
    Atomics.store(words, seat + TICKET, ticket);
    Atomics.store(words, seat + STATE, SEAT_WAITING);
    Atomics.add(this.words, WAITING, 1);
  }

  /** Takes the slot if the seat's ticket has been admitted; true when the seat holds one. */
  tryTake(words: Int32Array, seat: number): boolean {
    const state = Atomics.load(words, seat + STATE);
    if (state !== SEAT_WAITING) return state === SEAT_HOLDING;
    if (!this.admitted(Atomics.load(words, seat + TICKET))) return false;
    if (Atomics.compareExchange(words, seat + STATE, SEAT_WAITING, SEAT_HOLDING) !== SEAT_WAITING) return false;
    Atomics.sub(this.words, WAITING, 1);
    Atomics.add(this.words, HELD, 1);
    return true;
  }

  /** Sleeps until the waiting seat may have been admitted, or `ms` pass. */
  waitTurn(words: Int32Array, seat: number, ms: number): void {
    const wake = WAKES + (Atomics.load(words, seat + TICKET) & (RING - 1));
    const sequence = Atomics.load(this.words, wake);
    if (this.tryTake(words, seat) || Atomics.load(words, seat + STATE) !== SEAT_WAITING) return;
    Atomics.wait(this.words, wake, sequence, ms);
  }

  /** Leaves the queue: a held slot is passed on, a waiting ticket given up. Any thread may call it, any number of times. */
  leave(words: Int32Array, seat: number): void {
    const state = Atomics.load(words, seat + STATE);
    if (
      state === SEAT_HOLDING &&
      Atomics.compareExchange(words, seat + STATE, SEAT_HOLDING, SEAT_IDLE) === SEAT_HOLDING
    ) {
      Atomics.sub(this.words, HELD, 1);
      this.passOn();
    } else if (
      state === SEAT_WAITING &&
      Atomics.compareExchange(words, seat + STATE, SEAT_WAITING, SEAT_IDLE) === SEAT_WAITING
    ) {
      Atomics.sub(this.words, WAITING, 1);
      this.abandon(Atomics.load(words, seat + TICKET));
    }
  }

  /** True when some seat waits for a slot. */
  contended(): boolean {
    return Atomics.load(this.words, WAITING) > 0;
  }

  /** How many releases there have been: a queue whose count does not move is stuck. */
  releases(): number {
    return Atomics.load(this.words, RELEASES);
  }

  stats(): CpuSlotStats {
    return {
      slots: this.words[SLOT_COUNT]!,
      running: Atomics.load(this.words, HELD),
      waiting: Atomics.load(this.words, WAITING),
    };
  }

  /** Whether `ticket` < slots + releases. */
  private admitted(ticket: number): boolean {
    return ((ticket - this.words[SLOT_COUNT]! - Atomics.load(this.words, RELEASES)) | 0) < 0;
  }

  /** One release: admits the next ticket, or passes over it if its seat gave up. */
  private passOn(): void {
    for (;;) {
      const releases = (Atomics.add(this.words, RELEASES, 1) + 1) | 0;
      const ticket = (this.words[SLOT_COUNT]! + releases - 1) | 0;
      // Not issued yet: whoever takes it will find it admitted.
      if (((ticket - Atomics.load(this.words, NEXT_TICKET)) | 0) >= 0) return;
      const entry = ticket & (RING - 1);
      if (Atomics.compareExchange(this.words, TICKETS + entry, ABANDONED, OPEN) === ABANDONED) continue;
      Atomics.add(this.words, WAKES + entry, 1);
      Atomics.notify(this.words, WAKES + entry);
      return;
    }
  }

  private abandon(ticket: number): void {
    const entry = ticket & (RING - 1);
    Atomics.store(this.words, TICKETS + entry, ABANDONED);
    // Admitted already: no release looks at it again, unless one is now; the swap decides who passes on.
    if (this.admitted(ticket) && Atomics.compareExchange(this.words, TICKETS + entry, ABANDONED, OPEN) === ABANDONED)
      this.passOn();
  }
}
