// The status bar: the generation, the tools, running calls (and how many wait for a CPU turn),
// the queue and crashes when there are any, workers busy/alive per module, the expand and scroll
// state, and the session.
import { basename } from 'node:path';
import type { HostStats } from '../../core/index.js';

export interface ViewState {
  sessionId: string;
  toolCount: number;
  running: number;
  expand: boolean;
  /** Lines scrolled up from the newest output (0: following it). */
  scrolledBack: number;
}

export function statusLine(stats: HostStats, view: ViewState): string {
  const modules = Object.entries(stats.modules)
    .filter(([, pool]) => pool.alive > 0 || pool.busy > 0 || pool.queued > 0 || pool.crashes > 0)
    .map(
      ([module, pool]) => `${basename(module, '.lua')} ${pool.busy}/${pool.alive}${pool.disabled ? ' (disabled)' : ''}`,
    );
  const queued = Object.values(stats.modules).reduce((sum, pool) => sum + pool.queued, 0);
  const crashes = Object.values(stats.modules).reduce((sum, pool) => sum + pool.crashes, 0);
  // What changes first, the session (said again on quit) last: a narrow terminal cuts only that.
  return [
    ...(view.scrolledBack > 0 ? [`↑ scrolled ${view.scrolledBack} lines (PgDn)`] : []),
    `gen ${stats.generation}`,
    `${view.toolCount} tools`,
    stats.cpu.waiting > 0
      ? `${view.running} running, ${stats.cpu.waiting} waiting for a CPU turn`
      : `${view.running} running`,
    // A queue, crashes and expanded blocks are news; their absence needs no room.
    ...(queued > 0 ? [`queue ${queued}`] : []),
    ...(crashes > 0 ? [`crashes ${crashes}`] : []),
    `workers ${modules.length > 0 ? modules.join(', ') : 'none yet'}`,
    ...(view.expand ? ['expanded'] : []),
    `session ${view.sessionId}`,
  ].join(' | ');
}
