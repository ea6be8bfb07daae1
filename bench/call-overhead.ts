// call-overhead: a warm no-op call through ToolHost (argument checks, a worker task, a Lua call,
// the reply) against a bare worker_thread running wasmoon that answers postMessage. The goal is
// judged pinned to one CPU (see pinned.ts); the unpinned figure is reported beside it.
import { BareWorker } from './bare-worker.js';
import { withHost } from './fixtures.js';
import { hasTaskset, isPinnedChild, runPinned } from './pinned.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median, timeInterleaved } from './stats.js';

const ROUNDS = 10;
const CALLS_PER_ROUND = 200;
// Enough calls for V8 to optimize both paths on both threads: the goal is about warm calls.
const WARMUP = 3000;
// A warm call costs at most 1.6 times the bare worker (judged pinned).
const GOAL = { max: 1.6 };

async function measure(name: string, goal: { max?: number }): Promise<ScenarioResult> {
  const bare = await BareWorker.start("function handle(argument) return 'ok' end");
  try {
    return await withHost('noop', async (host) => {
      const [moonpool, baseline] = await timeInterleaved(
        ROUNDS,
        CALLS_PER_ROUND,
        WARMUP,
        () => host.call('noop', {}),
        () => bare.call({}),
      );
      return compare(
        name,
        'ms p50',
        median(moonpool),
        { name: 'bare worker_thread + wasmoon', value: median(baseline) },
        goal,
      );
    });
  } finally {
    await bare.close();
  }
}

export async function callOverhead(): Promise<ScenarioResult[]> {
  if (isPinnedChild()) return [await measure('call-overhead', GOAL)];
  const unpinned = {
    ...(await measure('call-overhead-unpinned', {})),
    note: 'informational: cross-CPU wake-ups vary run to run',
  };
  if (!hasTaskset())
    return [{ ...(await measure('call-overhead', GOAL)), note: 'taskset is missing: measured unpinned' }, unpinned];
  const pinned = runPinned('call-overhead');
  if (typeof pinned === 'string') throw new Error(pinned);
  return [...pinned.map((result) => ({ ...result, note: 'pinned to one CPU' })), unpinned];
}
