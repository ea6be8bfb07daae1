// The retention rule for sessions (docs/sessions.md): old sessions go with their spill directories,
// each removed under its lock, so a live writer or another remover sees it taken; a session in use
// (or the caller's own) loses only its log's oldest segments, which its writer never writes again,
// leaving an empty segment as the mark of how many went (markSegmentsRemoved).
// Other sessions' spill directories go after their own period (pruneSpillDirs). Never throws.
import { closeSync, existsSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SESSION_ID_PATTERN } from './host-options.js';
import { acquireSessionLock, unlinkQuietly, type SessionLock } from './session-lock.js';
import {
  diskBytes,
  listQuietly,
  liveWriter,
  scanSessions,
  sessionFilesById,
  sessionLogs,
  sessionLogPath,
  statQuietly,
  type SessionFiles,
} from './session-files.js';

export interface SessionRetention {
  /** Sessions not written for this many days are removed; Infinity keeps them. */
  maxAgeDays: number;
  /** Older sessions beyond this many bytes in all (logs and spill files) are removed; Infinity keeps them. */
  maxTotalBytes: number;
}

export interface PruneResult {
  /** Ids of the sessions removed. */
  removed: string[];
  /** Older segments removed from the logs of sessions that stay (in use, or the caller's). */
  removedSegments: string[];
  /** Bytes they all held. */
  freedBytes: number;
}

const DAY_MS = 86_400_000;

/**
 * Applies `retention` to the sessions in `stateDir`, newest first: each is kept while it is
 * young enough and the sessions kept so far fit; once one does not fit, every older one goes too.
 * `keep` (the caller's own session) and sessions in use stay, and still count toward the total,
 * less their log's oldest segments, removed while past the age limit or not fitting. The segment
 * being written (`<id>.log`) stays.
 */
export function pruneSessions(
  stateDir: string,
  retention: SessionRetention,
  keep: string | undefined,
  now = Date.now(),
): PruneResult {
  const sessions = scanSessions(stateDir).sort((a, b) => b.lastWriteMs - a.lastWriteMs);
  const tooOld = (mtimeMs: number): boolean => now - mtimeMs > retention.maxAgeDays * DAY_MS;
  const expired: SessionFiles[] = [];
  const result: PruneResult = { removed: [], removedSegments: [], freedBytes: 0 };
  let keptBytes = 0;
  let full = false;
  for (const session of sessions) {
    if (session.id !== keep && session.inUseBy === undefined) {
      full ||= keptBytes + session.bytes > retention.maxTotalBytes;
      if (full || tooOld(session.lastWriteMs)) expired.push(session);
      else keptBytes += session.bytes;
      continue;
    }
    let bytes = session.bytes;
    const { segments } = sessionLogs(session.files, session.id);
    for (const [index, { path, number }] of segments.entries()) {
      const stats = statQuietly(path);
      if (stats === undefined) continue; // Removed by another process already.
      if (keptBytes + bytes <= retention.maxTotalBytes && !tooOld(stats.mtimeMs)) break;
      const newest = index === segments.length - 1;
      // An empty newest segment is the mark left below: it holds no call and costs no bytes.
      if (newest && stats.size === 0) break;
      if (newest) markSegmentsRemoved(path, number);
      unlinkQuietly(path);
      result.removedSegments.push(path);
      result.freedBytes += diskBytes(stats);
      bytes -= diskBytes(stats);
    }
    keptBytes += bytes;
  }
  removeSessions(stateDir, expired, result);
  return result;
}

/**
 * Leaves an empty segment numbered after the newest one, about to be removed, so that segment numbers never
 * start again at 1: a later roll-over takes the number after it, and reading says how many segments went. A
 * segment of that number made meanwhile (the writer rolled over) serves as well.
 */
function markSegmentsRemoved(newestPath: string, newestNumber: number): void {
  const mark = newestPath.replace(/\d+\.log$/, `${String(newestNumber + 1).padStart(6, '0')}.log`);
  try {
    closeSync(openSync(mark, 'wx', 0o600));
  } catch {
    // There already, or cannot be made (a full disk): the segment goes all the same, for the size cap.
  }
}

/**
 * Removes sessions with their spill directories, each under its lock (one in use or not lockable stays), adding them
 * to `result`. The locks are all taken first, then the sessions directory is listed once: one listing, not N.
 */
function removeSessions(stateDir: string, sessions: SessionFiles[], result: PruneResult): void {
  const locked: { session: SessionFiles; lock: SessionLock }[] = [];
  try {
    for (const session of sessions) {
      try {
        const taken = acquireSessionLock(`${sessionLogPath(stateDir, session.id)}.lock`);
        if ('lock' in taken) locked.push({ session, lock: taken.lock });
      } catch {
        // The sessions directory is gone or not writable: the session stays.
      }
    }
    if (locked.length === 0) return;
    // Listed again under the locks: a writer that started beside one since the scan keeps it.
    const filesNow = sessionFilesById(stateDir);
    for (const { session, lock } of locked) {
      const files = (filesNow.get(session.id) ?? []).map(({ path }) => path).filter((path) => path !== lock.path);
      const spillDir = session.spillDir !== undefined && existsSync(session.spillDir) ? session.spillDir : undefined;
      // Nothing left: another process removed it between the scan and the lock, and it is not this one's removal.
      if (liveWriter(files) !== undefined || (files.length === 0 && spillDir === undefined)) continue;
      try {
        for (const path of files) unlinkQuietly(path);
        if (spillDir !== undefined) rmSync(spillDir, { recursive: true, force: true });
      } catch {
        continue; // What could not be removed stays; the next start tries again.
      }
      result.removed.push(session.id);
      result.freedBytes += session.bytes;
    }
  } finally {
    for (const { lock } of locked) lock.release();
  }
}

/** A spill file's name: `<tool>-<call id>.txt`, tool names and call ids being of these characters. */
const SPILL_FILE_NAME = /^[A-Za-z0-9_-]+\.txt$/;

/**
 * Removes spill directories of other sessions not modified for `maxAgeDays`; returns how many. Only a directory
 * named like a session id, holding nothing but spill files, whose session no live process writes (holding its lock
 * or writing a log of its own beside it), goes.
 */
export function pruneSpillDirs(stateDir: string, keep: string, maxAgeDays: number, now = Date.now()): number {
  let removed = 0;
  // Listed only once a spill directory is old enough to remove: most starts have none.
  let sessionFiles: ReturnType<typeof sessionFilesById> | undefined;
  for (const name of listQuietly(join(stateDir, 'spill'))) {
    const dir = join(stateDir, 'spill', name);
    const stats = statQuietly(dir);
    if (name === keep || !SESSION_ID_PATTERN.test(name) || !stats?.isDirectory()) continue;
    try {
      if (now - stats.mtimeMs < maxAgeDays * DAY_MS) continue;
      // In use: its lock's holder, or a second writer of its own log beside it, is alive.
      sessionFiles ??= sessionFilesById(stateDir);
      if (liveWriter((sessionFiles.get(name) ?? []).map(({ path }) => path)) !== undefined) continue;
      if (!readdirSync(dir, { withFileTypes: true }).every((file) => file.isFile() && SPILL_FILE_NAME.test(file.name)))
        continue;
      rmSync(dir, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone already, or not ours to remove: it stays.
    }
  }
  return removed;
}
