// The status bar: the generation, the tools, running calls (and how many wait for a CPU turn),
// the queue, crashes, the expand state, and workers busy/alive per module.
import { basename } from 'node:path';
import type { HostStats } from '../../core/index.js';

export function statusLine(stats: HostStats, toolCount: number, expand: boolean, running: number): string {
  const modules = Object.entries(stats.modules)
    .filter(([, pool]) => pool.alive > 0 || pool.busy > 0 || pool.queued > 0 || pool.crashes > 0)
    .map(([module, pool]) => `${basename(module, '.lua')} ${pool.busy}/${pool.alive}${pool.disabled ? ' (disabled)' : ''}`);
  const queued = Object.values(stats.modules).reduce((sum, pool) => sum + pool.queued, 0);
  const crashes = Object.values(stats.modules).reduce((sum, pool) => sum + pool.crashes, 0);
  // Fixed-width facts first: on a narrow terminal only the per-module list is cut.
  return [
    `gen ${stats.generation}`,
    `${toolCount} tools`,
    stats.cpu.waiting > 0 ? `${running} running, ${stats.cpu.waiting} waiting for a CPU turn` : `${running} running`,
    `queue ${queued}`,
    `crashes ${crashes}`,
    expand ? 'expanded' : 'collapsed',
    `workers ${modules.length > 0 ? modules.join(', ') : 'none yet'}`,
  ].join(' | ');
}
