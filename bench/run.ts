// `npm run bench`: runs every scenario against its baselines in one process, prints a table, and
// with `--json FILE` writes {"scenarios":[…]} for tracking. `--only NAME,…` runs a subset.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { callOverhead } from './call-overhead.js';
import { coldStartCall, coldStartList } from './cold-start.js';
import { cpuHeavy } from './cpu-heavy.js';
import { firstCalls50 } from './first-calls.js';
import { memoryPerModule } from './memory-per-module.js';
import { processPerCall } from './process-per-call.js';
import { dashboardScenario } from './dashboard.js';
import { mcpVsPlainServer } from './mcp-vs-plain.js';
import { heavyParallel } from './heavy-parallel.js';
import { hostileArgs } from './hostile-args.js';
import { mcpRealistic } from './mcp-realistic.js';
import { reloadScenario } from './reload.js';
import { responsiveness } from './responsiveness.js';
import { snapshotStorm } from './snapshot-storm.js';
import { throughput } from './throughput.js';
import { fileHeavy } from './file-heavy.js';
import { isPinnedChild, PINNED_FLAG } from './pinned.js';
import type { ScenarioResult } from './scenario.js';

const SCENARIOS: Record<string, () => Promise<ScenarioResult | ScenarioResult[]>> = {
  'call-overhead': callOverhead,
  'process-per-call': processPerCall,
  'cpu-heavy': cpuHeavy,
  'heavy-parallel': heavyParallel,
  responsiveness,
  'snapshot-storm': snapshotStorm,
  reload: reloadScenario,
  dashboard: dashboardScenario,
  throughput,
  'mcp-realistic': mcpRealistic,
  'mcp-vs-plain-server': mcpVsPlainServer,
  'hostile-args': hostileArgs,
  'memory-per-module': memoryPerModule,
  'cold-start-list': coldStartList,
  'cold-start-call': coldStartCall,
  'first-calls-50': firstCalls50,
  'file-heavy': fileHeavy,
};

function row(result: ScenarioResult): string {
  const number = (value: number): string =>
    value >= 100 ? value.toFixed(0) : value >= 1 ? value.toFixed(2) : value.toFixed(3);
  const cells = [
    result.name.padEnd(24),
    `${number(result.value)} ${result.unit}`.padEnd(16),
    result.baseline ? `${number(result.baseline.value)} (${result.baseline.name})`.padEnd(42) : '-'.padEnd(42),
    result.ratio === null ? '-'.padEnd(8) : result.ratio.toFixed(3).padEnd(8),
    result.goal === null ? '' : `${result.goal} ${result.met ? 'ok' : 'MISSED'}`,
  ];
  return `${cells.join(' ')}${result.note ? `  (${result.note})` : ''}`;
}

const { values } = parseArgs({
  options: { json: { type: 'string' }, only: { type: 'string' }, [PINNED_FLAG.slice(2)]: { type: 'boolean' } },
});
const selected = values.only ? values.only.split(',') : Object.keys(SCENARIOS);
const unknown = selected.filter((name) => !(name in SCENARIOS));
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown scenario ${unknown.join(', ')} (known: ${Object.keys(SCENARIOS).join(', ')})\n`);
  process.exit(2);
}

if (isPinnedChild()) {
  // A pinned child (pinned.ts) reports its results as JSON to its parent.
  const results: ScenarioResult[] = [];
  for (const name of selected) results.push(...[await SCENARIOS[name]!()].flat());
  process.stdout.write(JSON.stringify(results));
  process.exit(0);
}

const results: ScenarioResult[] = [];
process.stdout.write(
  `${'scenario'.padEnd(24)} ${'moonpool'.padEnd(16)} ${'baseline'.padEnd(42)} ${'ratio'.padEnd(8)} goal\n`,
);
for (const name of selected) {
  for (const result of [await SCENARIOS[name]!()].flat()) {
    results.push(result);
    process.stdout.write(`${row(result)}\n`);
  }
}
if (values.json) writeFileSync(values.json, `${JSON.stringify({ scenarios: results }, null, 2)}\n`);
