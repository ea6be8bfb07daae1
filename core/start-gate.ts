// How many workers may be starting at once. A worker's start (Node's bootstrap, our modules, the
// Lua state, the config) is CPU-bound; fifty started together on two cores run fifty isolates'
// compilers and collectors side by side, and all of them finish late. Through the gate they start
// a few at a time, first come first served; a start no longer wanted gives up its place in line.

export interface GateEntry {
  /** Resolves true once the place is taken (leave() gives it back), false if withdrawn first. */
  readonly admitted: Promise<boolean>;
  /** Gives up waiting; does nothing once admitted. */
  readonly withdraw: () => void;
}

export class StartGate {
  private starting = 0;
  private readonly waiting: Array<() => void> = [];

  /** `slots`: how many starts may run at once. */
  constructor(readonly slots: number) {}

  /** Asks for a place: taken at once when one is free, else after the starts waiting before it. */
  enter(): GateEntry {
    if (this.starting < this.slots) {
      this.starting++;
      return { admitted: Promise.resolve(true), withdraw: () => undefined };
    }
    let settle: (admitted: boolean) => void = () => undefined;
    const admitted = new Promise<boolean>((resolve) => (settle = resolve));
    const admit = (): void => settle(true);
    this.waiting.push(admit);
    const withdraw = (): void => {
      const index = this.waiting.indexOf(admit);
      if (index < 0) return;
      this.waiting.splice(index, 1);
      settle(false);
    };
    return { admitted, withdraw };
  }

  /** Places taken now. */
  get taken(): number {
    return this.starting;
  }

  /** Starts waiting for a place. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Gives a place back: the start that has waited longest takes it. */
  leave(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.starting--;
  }
}
