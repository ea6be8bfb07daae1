// The throughput baselines: bare worker_threads running wasmoon, answering id-tagged requests.
// `oneAtATime` gives each worker one request at a time and queues the rest on the main thread —
// the discipline a pool needs when ending a call means terminating its worker, as moonpool's
// does; otherwise requests are pipelined round-robin, so a worker never waits between two.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export class BarePool {
  private readonly pending = new Map<number, (result: unknown) => void>();
  private readonly idle: Worker[];
  private readonly waiting: { id: number; argument: unknown }[] = [];
  private nextId = 0;

  private constructor(
    private readonly workers: Worker[],
    private readonly oneAtATime: boolean,
  ) {
    this.idle = [...workers];
    for (const worker of workers) {
      worker.on('message', ({ id, result }: { id: number; result: unknown }) => {
        this.pending.get(id)?.(result);
        this.pending.delete(id);
        if (!this.oneAtATime) return;
        const next = this.waiting.shift();
        if (next) worker.postMessage(next);
        else this.idle.push(worker);
      });
    }
  }

  static async start(size: number, luaSource: string, oneAtATime: boolean): Promise<BarePool> {
    const workers = Array.from(
      { length: size },
      () => new Worker(new URL('./bare-wasmoon-pool-worker.js', import.meta.url), { workerData: luaSource }),
    );
    await Promise.all(workers.map((worker) => once(worker, 'message')));
    return new BarePool(workers, oneAtATime);
  }

  call(argument: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      if (!this.oneAtATime) {
        this.workers[id % this.workers.length]!.postMessage({ id, argument });
        return;
      }
      const worker = this.idle.pop();
      if (worker) worker.postMessage({ id, argument });
      else this.waiting.push({ id, argument });
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}
