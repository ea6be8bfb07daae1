// heavy-parallel: 2 × cores CPU-bound calls of about 0.4 s each, spread over two modules and all
// started at once on warm workers, against the ideal wall time: calls × one call's time measured
// alone on a warm worker ÷ cores (every CPU busy from the first call to the last, nothing lost).
import { availableParallelism } from 'node:os';
import { withHost } from './fixtures.js';
import { compare, type ScenarioResult } from './scenario.js';
import { callOk, SPIN_FIXTURE, spinSteps, warmWorkers } from './spin.js';
import { median } from './stats.js';

const CORES = availableParallelism();
const CALLS = 2 * CORES;
const CALL_MS = 400;
/** The warming calls' length: enough for the calls made at once to land on different workers. */
const WARM_CALL_MS = 20;
const ROUNDS = 3;
const TOOLS = ['spin_a', 'spin_b'];

/** Wall time of `action`, and the CPU time the process took meanwhile (every thread). */
async function timed(action: () => Promise<unknown>): Promise<{ ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await action();
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage(cpu);
  return { ms, cpuMs: (user + system) / 1000 };
}

export async function heavyParallel(): Promise<ScenarioResult> {
  const steps = await spinSteps(CALL_MS);
  const warmSteps = Math.ceil((steps * WARM_CALL_MS) / CALL_MS);
  return withHost(
    SPIN_FIXTURE,
    async (host) => {
      for (const tool of TOOLS) await warmWorkers(host, tool, CORES, warmSteps);
      const alone: { ms: number; cpuMs: number }[] = [];
      const together: { ms: number; cpuMs: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        alone.push(await timed(() => callOk(host, TOOLS[round % TOOLS.length]!, { n: steps })));
        together.push(
          await timed(() =>
            Promise.all(
              Array.from({ length: CALLS }, (_, call) => callOk(host, TOOLS[call % TOOLS.length]!, { n: steps })),
            ),
          ),
        );
      }
      const oneCall = median(alone.map((round) => round.ms));
      const ideal = (CALLS * oneCall) / CORES;
      const result = compare(
        'heavy-parallel',
        'ms wall',
        median(together.map((round) => round.ms)),
        { name: `ideal: ${CALLS} calls × one alone ÷ ${CORES} CPUs`, value: ideal },
        { max: 1.15 },
      );
      // The CPUs the process had: under 1 alone or under `cores` together, other programs took the rest.
      const used = (rounds: { ms: number; cpuMs: number }[]): string =>
        median(rounds.map((round) => round.cpuMs / round.ms)).toFixed(2);
      return {
        ...result,
        note: `one call alone ${oneCall.toFixed(0)} ms; CPUs used: ${used(alone)} alone, ${used(together)} of ${CORES} together`,
      };
    },
    undefined,
    { maxThreadsPerModule: CORES },
  );
}
