// One line's worth about each session in a state dir — when it started, how many calls it
// recorded, its size, who is writing it, what was wrong reading it — oldest first, the newest
// last (the order `replay` shows calls in). Damage is a note on its session, never a failure.
import { sessionLogPath } from './session-log.js';
import { outlineSessionLog } from './session-stream.js';
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
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const time = Date.UTC(year, month - 1, day, hour, minute, second);
  return Number.isNaN(time) ? undefined : time;
}

export function summarizeSessions(stateDir: string): SessionSummary[] {
  const summaries = scanSessions(stateDir).map((session): SessionSummary => {
    // The files the scan found: one directory listing for all sessions, not one per session.
    const mainLog = sessionLogPath(stateDir, session.id);
    const writerLogs = session.files.filter((path) => path.endsWith('.log') && path !== mainLog);
    // Each log's outline (every segment and writer's log): its count, first start and damage,
    // read a frame at a time, no body decoded.
    const outlines = [mainLog, ...[...writerLogs].sort()].map(outlineSessionLog);
    const starts = outlines.flatMap((outline) => (outline.firstStart === undefined ? [] : [outline.firstStart]));
    const firstStart = starts.length === 0 ? undefined : Math.min(...starts);
    const calls = outlines.reduce((sum, outline) => sum + outline.calls, 0);
    const summary: SessionSummary = {
      id: session.id,
      startedAt: firstStart ?? idTime(session.id) ?? session.lastWriteMs,
      calls,
      bytes: session.bytes,
      problems: outlines.flatMap((outline) => outline.damage),
    };
    if (session.inUseBy !== undefined) summary.inUseBy = session.inUseBy;
    return summary;
  });
  return summaries.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
}
