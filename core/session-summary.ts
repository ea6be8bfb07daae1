// One line's worth about each session in a state dir — when it started, how many calls it
// recorded, its size, who is writing it, what was wrong reading it — oldest first, the newest
// last (the order `replay` shows calls in). Damage is a note on its session, never a failure.
import { readSessionLogs, sessionLogPath } from './session-log.js';
import { scanSessions } from './session-files.js';

export interface SessionSummary {
  id: string;
  /** When its first recorded call started, else the time in its id, else its oldest file's (ms since the epoch). */
  startedAt: number;
  /** Calls recorded and readable. */
  calls: number;
  /** Bytes on disk: logs and spill files. */
  bytes: number;
  /** The pid of a live process writing it. */
  inUseBy?: number;
  /** What reading its logs skipped or could not read, one line each. */
  problems: string[];
}

/** The UTC time a generated session id starts with (`20261130-105400-…`), if it has one. */
function idTime(id: string): number | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(id);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [number, number, number, number, number, number];
  const time = Date.UTC(year, month - 1, day, hour, minute, second);
  return Number.isNaN(time) ? undefined : time;
}

export function summarizeSessions(stateDir: string): SessionSummary[] {
  const summaries = scanSessions(stateDir).map((session): SessionSummary => {
    // The files the scan found: one directory listing for all sessions, not one per session.
    const mainLog = sessionLogPath(stateDir, session.id);
    const writerLogs = session.files.filter((path) => path.endsWith('.log') && path !== mainLog);
    const { records, warnings } = readSessionLogs(mainLog, writerLogs);
    // Times a damaged but checksum-valid record made impossible (NaN, 1e300) are no start time.
    const starts = records.map((record) => record.finishedAt - record.durationMs).filter((start) => Number.isFinite(start) && !Number.isNaN(new Date(start).getTime()));
    const firstStart = starts.length === 0 ? undefined : starts.reduce((first, start) => Math.min(first, start));
    // A record that left something out (its `dropped` lines) is intact: only damage is a problem.
    const leftOut = records.flatMap((record) => (record.dropped ?? []).map((line) => `: call ${record.callId} (${record.tool}): ${line}`));
    const summary: SessionSummary = {
      id: session.id,
      startedAt: firstStart ?? idTime(session.id) ?? session.lastWriteMs,
      calls: records.length,
      bytes: session.bytes,
      problems: warnings.filter((warning) => !leftOut.some((suffix) => warning.endsWith(suffix))),
    };
    if (session.inUseBy !== undefined) summary.inUseBy = session.inUseBy;
    return summary;
  });
  return summaries.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
}
