// Who writes a session's log: a lock file next to it holding the writer's pid. A lock whose
// process is gone (or that holds no pid) is stale and taken over; only the lock's holder may cut
// a torn tail, so no process ever truncates bytes another live process wrote.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

export interface SessionLock {
  /** Removes the lock if it is still this process's. */
  release(): void;
}

/** Longest lock file read: a pid and a newline. */
const MAX_LOCK_BYTES = 32;

/**
 * The pid in a lock file, or undefined when it holds none (an empty or garbled file, or something
 * that is not a regular file: a FIFO in its place is never read, since that would wait forever).
 */
function lockOwner(path: string): number | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    const pid = Number(buffer.subarray(0, readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0)).toString('utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, owned by another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid of the live process holding the lock at `path`, or undefined when none does. */
export function liveLockHolder(path: string): number | undefined {
  const owner = lockOwner(path);
  return owner !== undefined && processAlive(owner) ? owner : undefined;
}

/** Creates the lock with its pid already in it (a link of a written file), so no reader sees it empty. */
function tryCreate(path: string): boolean {
  const written = `${path}.${process.pid}-${randomBytes(3).toString('hex')}`;
  writeFileSync(written, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(written, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(written);
  }
}

/**
 * Moves a lock judged stale out of the way, atomically: it is renamed aside, then read again, for
 * between the look and the rename another process may have replaced it with a fresh lock of its
 * own. Such a lock is put back, and its live holder returned; a stale one is removed.
 */
function takeAwayStale(path: string): number | undefined {
  const aside = `${path}.stale-${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch {
    // Gone already: another process took it away first, and the next attempt sees who holds it now.
    return undefined;
  }
  const owner = lockOwner(aside);
  try {
    if (owner === undefined || !processAlive(owner)) return undefined;
    try {
      linkSync(aside, path);
    } catch {
      // A third process took the place meanwhile: the next attempt sees who.
    }
    return owner;
  } finally {
    unlinkSync(aside);
  }
}

/**
 * Takes the lock at `path`, or returns the pid of the live process holding it. A stale lock is
 * removed and taken; this process holding it already (a second host on the same session) counts
 * as live. Throws only for an fs failure other than the lock existing.
 */
export function acquireSessionLock(path: string): { lock: SessionLock } | { heldBy: number } {
  for (let attempt = 0; attempt < 2; attempt++) {
    if (tryCreate(path)) {
      return {
        lock: {
          release() {
            if (lockOwner(path) !== process.pid) return;
            try {
              unlinkSync(path);
            } catch {
              // Already gone: nothing to release.
            }
          },
        },
      };
    }
    const owner = lockOwner(path);
    if (owner !== undefined && processAlive(owner)) return { heldBy: owner };
    const taken = takeAwayStale(path);
    if (taken !== undefined) return { heldBy: taken };
  }
  const owner = lockOwner(path);
  return { heldBy: owner ?? 0 };
}
