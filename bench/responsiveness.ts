// responsiveness: while `cores` CPU-bound calls of a few seconds keep every CPU busy, no-op calls
// to another module, made one after another for a couple of seconds: their p95 latency is what
// a user waits for a quick tool while heavy ones run. The goal is absolute.
import { availableParallelism } from 'node:os';
import { withHost } from './fixtures.js';
import { within, type ScenarioResult } from './scenario.js';
import { callOk, moduleStats, SPIN_FIXTURE, spinSteps, warmWorkers } from './spin.js';
import { percentile } from './stats.js';

const CORES = availableParallelism();
/** Each heavy call's length alone: well past the quick calls' window, which must end first. */
const HEAVY_MS = 4000;
const QUICK_WINDOW_MS = 2000;
const WARM_CALL_MS = 20;
const QUICK_WARM_CALLS = 20;
const GOAL_P95_MS = 60;

async function untilBusy(read: () => number, target: number): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (read() < target) {
    if (performance.now() > deadline) throw new Error(`responsiveness: ${read()} of ${target} heavy calls started`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export async function responsiveness(): Promise<ScenarioResult> {
  const steps = await spinSteps(HEAVY_MS);
  return withHost(
    SPIN_FIXTURE,
    async (host) => {
      await warmWorkers(host, 'spin_a', CORES, Math.ceil((steps * WARM_CALL_MS) / HEAVY_MS));
      for (let i = 0; i < QUICK_WARM_CALLS; i++) await callOk(host, 'quick', {});
      const load = new AbortController();
      const heavy = Array.from({ length: CORES }, () => host.call('spin_a', { n: steps }, { signal: load.signal }));
      await untilBusy(() => moduleStats(host, 'spin_a').busy, CORES);
      const latencies: number[] = [];
      const until = performance.now() + QUICK_WINDOW_MS;
      while (performance.now() < until) {
        const started = performance.now();
        await callOk(host, 'quick', {});
        latencies.push(performance.now() - started);
      }
      load.abort();
      const ended = await Promise.all(heavy);
      // A heavy call that ended on its own left a CPU idle during the quick calls.
      const early = ended.find((result) => result.status !== 'cancelled');
      if (early)
        throw new Error(
          `responsiveness: a heavy call ended before the quick calls did (${early.status}), the CPUs were not kept busy`,
        );
      const note = `${latencies.length} quick calls beside ${CORES} heavy ones; p50 ${percentile(latencies, 50).toFixed(2)} ms, max ${Math.max(...latencies).toFixed(1)} ms`;
      return within('responsiveness', 'ms p95', percentile(latencies, 95), { max: GOAL_P95_MS }, note);
    },
    undefined,
    { maxThreadsPerModule: CORES },
  );
}
