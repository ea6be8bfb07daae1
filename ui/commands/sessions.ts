// `moonpool sessions [--json]`: applies the retention rule, then lists every session, one line
// each — id, start time (UTC), calls, size on disk, who is writing it, what is damaged — oldest
// first and the newest last, the one `replay last` shows. It needs no config and starts no worker.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  MoonpoolError,
  defaultStateDir,
  DEFAULT_SESSION_MAX_AGE_DAYS,
  DEFAULT_SESSION_MAX_TOTAL_BYTES,
  pruneSessions,
  summarizeSessions,
  type SessionSummary,
} from '../../core/index.js';
import { UsageError, type CliInput } from '../cli-options.js';
import type { Output } from '../open-host.js';
import { retentionFrom } from '../retention-option.js';

function formatBytes(bytes: number): string {
  if (bytes === Infinity) return 'no limit';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** The time as `2026-11-30 10:54:00Z`, or a placeholder as wide for one a damaged record made impossible. */
function utcTime(ms: number): string {
  const date = new Date(ms);
  return Number.isNaN(date.getTime())
    ? '(no valid time)'.padEnd(20)
    : `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

function note(summary: SessionSummary, sessionsDir: string): string {
  const notes: string[] = [];
  if (summary.inUseBy !== undefined) notes.push(`in use (pid ${summary.inUseBy})`);
  const [first, ...more] = summary.problems;
  if (first !== undefined)
    notes.push(
      `damaged: ${first.replace(`${sessionsDir}/`, '')}${more.length > 0 ? ` (and ${more.length} more)` : ''}`,
    );
  return notes.join('  ');
}

/** Sessions listed without --all: the newest. */
export const SHOWN_SESSIONS = 20;

/** The sessions in the state dir, after the retention rule; the newest last. */
export function listSessions(input: CliInput, output: Output): number {
  if (input.positionals.length > 0) throw new UsageError(`sessions takes no arguments (got '${input.positionals[0]}')`);
  const stateDir = resolve(input.stateDir ?? defaultStateDir());
  if (existsSync(stateDir) && !statSync(stateDir).isDirectory()) {
    throw new MoonpoolError(
      'STATE_DIR_UNUSABLE',
      `the state directory ${stateDir} is not a directory; pass --state-dir or set $XDG_STATE_HOME`,
    );
  }
  const retention = retentionFrom(input.keepSessions) ?? {
    maxAgeDays: DEFAULT_SESSION_MAX_AGE_DAYS,
    maxTotalBytes: DEFAULT_SESSION_MAX_TOTAL_BYTES,
  };
  const pruned = pruneSessions(stateDir, retention, undefined);
  if (pruned.removed.length > 0 || pruned.removedSegments.length > 0) {
    const rule = `${retention.maxAgeDays === Infinity ? 'any age' : `${retention.maxAgeDays} days`}, ${formatBytes(retention.maxTotalBytes)}`;
    const what = [
      ...(pruned.removed.length > 0
        ? [`${pruned.removed.length} session${pruned.removed.length === 1 ? '' : 's'}`]
        : []),
      ...(pruned.removedSegments.length > 0
        ? [
            `${pruned.removedSegments.length} old log segment${pruned.removedSegments.length === 1 ? '' : 's'} of sessions in use`,
          ]
        : []),
    ];
    output.stderr.write(
      `moonpool: removed ${what.join(' and ')} past the retention rule (${rule}; --keep-sessions): ${formatBytes(pruned.freedBytes)} freed\n`,
    );
  }
  const summaries = summarizeSessions(stateDir);
  if (input.json) {
    output.stdout.write(`${JSON.stringify(summaries, null, 2)}\n`);
    return 0;
  }
  if (summaries.length === 0) {
    output.stderr.write(`moonpool: no sessions in ${stateDir}\n`);
    return 0;
  }
  // Each `moonpool call` is a session of its own: a long list is cut to its newest, and says so.
  const shown = input.all ? summaries : summaries.slice(-SHOWN_SESSIONS);
  if (shown.length < summaries.length)
    output.stderr.write(
      `moonpool: ${summaries.length - shown.length} older sessions not shown (--all lists every one)\n`,
    );
  const idWidth = Math.max(...shown.map((summary) => summary.id.length));
  const sessionsDir = `${stateDir}/sessions`;
  for (const summary of shown) {
    const calls = `${summary.calls} call${summary.calls === 1 ? '' : 's'}`;
    const cells = [
      summary.id.padEnd(idWidth),
      utcTime(summary.startedAt),
      calls.padStart(11),
      formatBytes(summary.bytes).padStart(10),
      note(summary, sessionsDir),
    ];
    output.stdout.write(`${cells.join('  ').trimEnd()}\n`);
  }
  return 0;
}
