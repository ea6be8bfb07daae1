// The retention rule for sessions, applied when a host starts: a session not written for
// `maxAgeDays`, or older than the newest sessions that fit in `maxTotalBytes`, is removed with its
// spill directory. A session in use is never touched: the remover holds the session's lock while
// it removes, so a writer and another remover both see it taken. Never throws.
import { existsSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { acquireSessionLock } from './session-lock.js';
import { liveWriter, scanSessions, sessionFilePaths, type SessionFiles } from './session-files.js';

export interface SessionRetention {
  /** Sessions not written for this many days are removed; Infinity keeps them. */
  maxAgeDays: number;
  /** Older sessions beyond this many bytes in all (logs and spill files) are removed; Infinity keeps them. */
  maxTotalBytes: number;
}

export interface PruneResult {
  /** Ids of the sessions removed. */
  removed: string[];
  /** Bytes they held. */
  freedBytes: number;
}

const DAY_MS = 86_400_000;

/**
 * Applies `retention` to the sessions in `stateDir`, newest first: each is kept while it is
 * young enough and the sessions kept so far fit; once one does not fit, every older one goes too.
 * `keep` (the caller's own session) and sessions in use stay, and still count toward the total.
 */
export function pruneSessions(stateDir: string, retention: SessionRetention, keep: string | undefined, now = Date.now()): PruneResult {
  const result: PruneResult = { removed: [], freedBytes: 0 };
  const sessions = scanSessions(stateDir).sort((a, b) => b.lastWriteMs - a.lastWriteMs);
  let keptBytes = 0;
  let full = false;
  for (const session of sessions) {
    full ||= keptBytes + session.bytes > retention.maxTotalBytes;
    const expired = full || now - session.lastWriteMs > retention.maxAgeDays * DAY_MS;
    if (expired && session.id !== keep && session.inUseBy === undefined && removeSession(stateDir, session)) {
      result.removed.push(session.id);
      result.freedBytes += session.bytes;
    } else {
      keptBytes += session.bytes;
    }
  }
  return result;
}

/** Removes a session's files and spill directory under its lock; false when it is in use or cannot be locked. */
function removeSession(stateDir: string, session: SessionFiles): boolean {
  const lockPath = join(stateDir, 'sessions', `${session.id}.log.lock`);
  let taken: ReturnType<typeof acquireSessionLock>;
  try {
    taken = acquireSessionLock(lockPath);
  } catch {
    // The sessions directory is gone or not writable: nothing of it is removed.
    return false;
  }
  if ('heldBy' in taken) return false;
  try {
    // Listed again under the lock: a writer that started beside it since the scan keeps it.
    const files = sessionFilePaths(stateDir, session.id).filter((path) => path !== taken.lock.path);
    if (liveWriter(files) !== undefined) return false;
    const spillDir = session.spillDir !== undefined && existsSync(session.spillDir) ? session.spillDir : undefined;
    // Another process removed it between the scan and the lock: not this one's removal.
    if (files.length === 0 && spillDir === undefined) return false;
    for (const path of files) unlinkQuietly(path);
    if (spillDir !== undefined) rmSync(spillDir, { recursive: true, force: true });
    return true;
  } catch {
    // What could not be removed stays; the next start tries again.
    return false;
  } finally {
    taken.lock.release();
  }
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Removed by another process already.
  }
}
