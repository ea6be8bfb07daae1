// call-overhead: a warm no-op call through ToolHost (argument checks, a worker task, a fresh Lua
// thread, the event channel) against a bare worker_thread running wasmoon answering postMessage.
import { BareWorker } from './bare-worker.js';
import { withHost } from './fixtures.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median, timeEach, timeInterleaved } from './stats.js';

const ROUNDS = 10;
const CALLS_PER_ROUND = 200;
const WARMUP = 300;

export async function warmNoopCallMs(): Promise<number> {
  return withHost('noop', async (host) => median(await timeEach(ROUNDS * CALLS_PER_ROUND, WARMUP, () => host.call('noop', {}))));
}

export async function callOverhead(): Promise<ScenarioResult> {
  const bare = await BareWorker.start("function handle(argument) return 'ok' end");
  try {
    return await withHost('noop', async (host) => {
      const [moonpool, baseline] = await timeInterleaved(ROUNDS, CALLS_PER_ROUND, WARMUP, () => host.call('noop', {}), () => bare.call({}));
      return compare('call-overhead', 'ms p50', median(moonpool), { name: 'bare worker_thread + wasmoon', value: median(baseline) }, { max: 2.5 });
    });
  } finally {
    await bare.close();
  }
}
