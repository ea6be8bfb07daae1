// Runs a scenario in a child process pinned to one CPU (`taskset -c 0`). Two threads that
// ping-pong across this VM's vCPUs pay a wake-up cost that swings run to run by several times,
// depending on where the scheduler places them; on one CPU the cost is steady and equal for both
// sides, so the ratio measures what moonpool adds, not where the threads landed.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ScenarioResult } from './scenario.js';

export const PINNED_FLAG = '--pinned-child';

export function isPinnedChild(): boolean {
  return process.argv.includes(PINNED_FLAG);
}

export function hasTaskset(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
}

/** The child's results, or an error message. */
export function runPinned(scenario: string): ScenarioResult[] | string {
  const runner = fileURLToPath(new URL('./run.js', import.meta.url));
  const child = spawnSync('taskset', ['-c', '0', process.execPath, runner, '--only', scenario, PINNED_FLAG], {
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (child.status !== 0) return `the pinned run failed: ${child.stderr.trim() || `exit ${child.status}`}`;
  return JSON.parse(child.stdout) as ScenarioResult[];
}
