// cold-start-list and cold-start-call: the whole `moonpool list` / `moonpool call` command on a
// one-tool config, process start to exit, against `node -e 0` timed in alternating rounds.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_FIXTURES } from './fixtures.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median } from './stats.js';

const ROUNDS = 15;
const CLI = fileURLToPath(new URL('../ui/cli.js', import.meta.url));
const CONFIG = join(BENCH_FIXTURES, 'noop', 'init.lua');

function timeRun(args: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const child = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (child.status !== 0) throw new Error(`${args.join(' ')} failed: ${child.stderr.trim() || `exit ${child.status}`}`);
  return elapsed;
}

function coldStart(name: string, command: string[], goal: number): ScenarioResult {
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-'));
  const env = { ...process.env, XDG_STATE_HOME: stateDir };
  try {
    const moonpool: number[] = [];
    const baseline: number[] = [];
    // One unmeasured run each fills the file cache.
    timeRun([CLI, ...command, '--config', CONFIG], env);
    timeRun(['-e', '0'], env);
    for (let round = 0; round < ROUNDS; round++) {
      moonpool.push(timeRun([CLI, ...command, '--config', CONFIG], env));
      baseline.push(timeRun(['-e', '0'], env));
    }
    return compare(name, 'ms p50', median(moonpool), { name: 'node -e 0', value: median(baseline) }, { max: goal });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

export function coldStartList(): Promise<ScenarioResult> {
  return Promise.resolve(coldStart('cold-start-list', ['list'], 3.5));
}

export function coldStartCall(): Promise<ScenarioResult> {
  return Promise.resolve(coldStart('cold-start-call', ['call', 'noop', '{}'], 4.5));
}
