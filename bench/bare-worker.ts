// Drives the bare wasmoon worker baseline from the main thread: one message, one answer.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export class BareWorker {
  private constructor(private readonly worker: Worker) {}

  /** Starts a worker whose Lua source defines a global function `handle(argument)`. */
  static async start(luaSource: string): Promise<BareWorker> {
    const worker = new Worker(new URL('./bare-wasmoon-worker.js', import.meta.url), { workerData: luaSource });
    await once(worker, 'message');
    return new BareWorker(worker);
  }

  async call(argument: unknown): Promise<unknown> {
    this.worker.postMessage(argument);
    const [answer] = (await once(this.worker, 'message')) as [unknown];
    return answer;
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
