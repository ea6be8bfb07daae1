// first-calls-50: a host on a config of 50 modules, each of whose first calls is made at once —
// the cost a user meets after start-up or a reload, when every module's worker starts together.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { generateModules } from './generated-modules.js';
import { within, type ScenarioResult } from './scenario.js';
import { median } from './stats.js';

const MODULES = 50;
const ROUNDS = 3;
const GOAL_MS = 3000;

/** One round: its wall time, and the CPU time (user + system, every thread of the process) it took. */
async function firstCalls(): Promise<{ ms: number; cpuMs: number }> {
  const modules = generateModules(MODULES);
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-'));
  const host = await ToolHost.start({ config: modules.config, stateDir, cwd: stateDir });
  try {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const results = await Promise.all(modules.toolNames.map((name) => host.call(name, {})));
    const elapsed = performance.now() - started;
    const { user, system } = process.cpuUsage(cpu);
    const failed = results.find((result) => result.status !== 'ok');
    if (failed) throw new Error(`first-calls-50: a call failed: ${failed.content}`);
    return { ms: elapsed, cpuMs: (user + system) / 1000 };
  } finally {
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
    modules.remove();
  }
}

export async function firstCalls50(): Promise<ScenarioResult> {
  const rounds: Array<{ ms: number; cpuMs: number }> = [];
  for (let round = 0; round < ROUNDS; round++) rounds.push(await firstCalls());
  const value = median(rounds.map((round) => round.ms));
  // The CPU the starts took: on a machine busy with other work, wall time says little on its own.
  const cpuSeconds = (median(rounds.map((round) => round.cpuMs)) / 1000).toFixed(1);
  return within(
    'first-calls-50',
    'ms p50',
    value,
    { max: GOAL_MS },
    `${MODULES} modules, all first calls at once; ${cpuSeconds} s of CPU`,
  );
}
