// first-calls-50: a host on a config of 50 modules, each of whose first calls is made at once —
// the cost a user meets after start-up or a reload, when every module's worker starts together.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { generateModules } from './generated-modules.js';
import { type ScenarioResult } from './scenario.js';
import { median } from './stats.js';

const MODULES = 50;
const ROUNDS = 3;
const GOAL_MS = 3000;

async function firstCalls(): Promise<number> {
  const modules = generateModules(MODULES);
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-'));
  const host = await ToolHost.start({ config: modules.config, stateDir, cwd: stateDir });
  try {
    const started = performance.now();
    const results = await Promise.all(modules.toolNames.map((name) => host.call(name, {})));
    const elapsed = performance.now() - started;
    const failed = results.find((result) => result.status !== 'ok');
    if (failed) throw new Error(`first-calls-50: a call failed: ${failed.content}`);
    return elapsed;
  } finally {
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
    modules.remove();
  }
}

export async function firstCalls50(): Promise<ScenarioResult> {
  const durations: number[] = [];
  for (let round = 0; round < ROUNDS; round++) durations.push(await firstCalls());
  const value = median(durations);
  return { name: 'first-calls-50', value, unit: 'ms p50', baseline: null, ratio: null, goal: `<= ${GOAL_MS} ms`, met: value <= GOAL_MS, note: `${MODULES} modules, all first calls at once` };
}
