// A slow CPU-bound call the pool lowered to nice 10 (core/thread-priority.ts), on a CPU it shares
// with busy threads at nice 0, runs only its weighted share: under a tenth of the CPU beside one
// of them. Its worker must still count as held up by it (core/worker-stall.ts), not as one the
// machine merely keeps off the CPUs: quick calls must not be handed into its port to wait behind
// it. Linux only: the test pins this process to CPU 0 (taskset) beside two shell loops.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism, getPriority } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const TOOLS = `
agent.on('discover_tools', function(registry)
  registry:add { name = 'echo', description = 'echo', parameters = { type = 'object', properties = { id = { type = 'string' } } },
    run = function(args) return args.id end }
  registry:add { name = 'busy', description = 'busy', timeout = 60,
    parameters = { type = 'object', properties = { ms = { type = 'number' } } },
    run = function(args)
      local ends = os.clock() + args.ms / 1000
      while os.clock() < ends do end
      return 'done'
    end }
end)
`;

/** What the test reads of the module's pool and its workers (private to core/worker-pool.ts). */
interface PoolWorkerView {
  tasks: object[];
  threadId: number;
}
interface PoolView {
  workers: Set<PoolWorkerView>;
  hand(worker: PoolWorkerView, job: object): boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('a worker in a slow CPU-bound call lowered to nice 10 on a crowded CPU takes no quick calls into its port', { skip: process.platform !== 'linux' && 'Linux only', timeout: 60_000 }, async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), TOOLS);
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 2 });
  // Two warm workers, before the CPU gets crowded.
  await Promise.all([host.call('busy', { ms: 40 }), host.call('busy', { ms: 40 })]);
  for (let i = 0; i < 20; i++) assert.equal((await host.call('echo', { id: `warm ${i}` })).status, 'ok');
  const [module] = Object.keys(host.stats().modules);
  const pool = (host as unknown as { generation: { modulePool(module: string): PoolView } }).generation.modulePool(module!);
  assert.equal(pool.workers.size, 2);

  // Every thread of this process (the workers too) on CPU 0, beside two loops at nice 0.
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  const loops: ChildProcess[] = [0, 1].map(() => spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }));
  try {
    const slow = host.call('busy', { ms: 3000 });
    let slowWorker: PoolWorkerView | undefined;
    for (let i = 0; i < 100 && slowWorker === undefined; i++) {
      await sleep(10);
      slowWorker = [...pool.workers].find((worker) => worker.tasks.length > 0);
    }
    assert.ok(slowWorker !== undefined, 'the slow call never reached a worker');
    for (let i = 0; i < 300 && getPriority(slowWorker.threadId) !== 10; i++) await sleep(10);
    assert.equal(getPriority(slowWorker.threadId), 10, 'the slow call was not lowered');

    const handedBehind: string[] = [];
    let burst = 0;
    const hand = pool.hand.bind(pool);
    pool.hand = (worker, job) => {
      if (worker === slowWorker) handedBehind.push(`burst ${burst}`);
      return hand(worker, job);
    };
    // Bursts of quick calls while the slow call runs on: the free worker takes one, the rest wait
    // in its port. The first look at the slow worker's thread is not judged yet, so the first
    // burst may still land behind it; none after may.
    for (; burst < 12; burst++) {
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => host.call('echo', { id: `${burst}.${i}` })));
      for (const result of results) assert.equal(result.status, 'ok', result.content);
      await sleep(20);
    }
    assert.equal((await slow).status, 'ok');
    const late = handedBehind.filter((where) => where !== 'burst 0');
    assert.deepEqual(late, [], `quick calls handed into the port of the worker in the slow call: ${handedBehind.join(', ')}`);
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
    execFileSync('taskset', ['-a', '-p', '-c', `0-${availableParallelism() - 1}`, String(process.pid)], { stdio: 'ignore' });
  }
});
