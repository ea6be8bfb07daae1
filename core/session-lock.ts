// Who writes a session's log: a lock file next to it holding the writer's pid. A lock whose
// process is gone (or that holds no pid) is stale and taken over; only the lock's holder may cut
// a torn tail, so no process ever truncates bytes another live process wrote.
//
// A stale lock is never removed to make room: it is superseded. The lock's files are generations,
// `<path>` (0) and `<path>.<n>`; the newest is the lock, and a process that finds it stale
// creates the next one, which only one process can (a link fails when the name exists). Removing
// a stale lock by name could not be made safe: between judging the file stale and moving it away,
// another process may have replaced it with a live lock of its own, and putting that back leaves a
// moment in which a third takes the lock too (two processes each held it, seen in a test of six
// processes finding one stale lock at once).
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, linkSync, openSync, readdirSync, readSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';

export interface SessionLock {
  /** The lock file this process holds. */
  readonly path: string;
  /** Removes the lock if it is still this process's. */
  release(): void;
}

/** Attempts to take a lock that keeps changing hands before this process says who holds it. */
const MAX_ATTEMPTS = 8;
/**
 * The last generation: a lock file's name has at most nine digits after the dot. A stale lock of
 * this generation (only planted there) is not superseded: its session is written beside it.
 */
const LAST_GENERATION = 999_999_999;

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

/** The pid in the lock file `file` when its process is alive (any generation, see above). */
export function lockFileHolder(file: string): number | undefined {
  const owner = lockOwner(file);
  return owner !== undefined && processAlive(owner) ? owner : undefined;
}

/** The file of generation `generation` of the lock at `path`. */
function generationFile(path: string, generation: number): string {
  return generation === 0 ? path : `${path}.${generation}`;
}

/** The generations of the lock at `path` that exist, oldest first. */
function generations(path: string): number[] {
  const name = basename(path);
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const entry of names) {
    if (!entry.startsWith(name)) continue;
    const rest = entry.slice(name.length);
    if (rest === '') found.push(0);
    else if (/^\.[1-9]\d{0,8}$/.test(rest)) found.push(Number(rest.slice(1)));
  }
  return found.sort((a, b) => a - b);
}

/** The newest generation of the lock at `path`, or -1 when it has none. */
function newestGeneration(path: string): number {
  return generations(path).at(-1) ?? -1;
}

/** The pid of the live process holding the lock at `path` (its newest generation), or undefined when none does. */
export function liveLockHolder(path: string): number | undefined {
  const newest = newestGeneration(path);
  return newest < 0 ? undefined : lockFileHolder(generationFile(path, newest));
}

/** Creates the lock file with its pid already in it (a link of a written file), so no reader sees it empty; false when it exists. */
function tryCreate(file: string): boolean {
  const written = `${file}.${process.pid}-${randomBytes(3).toString('hex')}`;
  writeFileSync(written, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
  try {
    linkSync(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(written);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already.
  }
}

/**
 * Takes the lock at `path`, or returns the pid of the live process holding it. A stale lock is
 * superseded by the next generation; this process holding it already (a second host on the same
 * session) counts as live. Throws only for an fs failure other than the lock existing.
 */
export function acquireSessionLock(path: string): { lock: SessionLock } | { heldBy: number } {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const existing = generations(path);
    const newest = existing.at(-1) ?? -1;
    if (newest >= 0) {
      const holder = lockFileHolder(generationFile(path, newest));
      if (holder !== undefined) return { heldBy: holder };
    }
    if (newest >= LAST_GENERATION) break;
    const file = generationFile(path, newest + 1);
    if (tryCreate(file)) {
      // The generations before it are stale: a live one is never superseded.
      for (const generation of existing) unlinkQuietly(generationFile(path, generation));
      return {
        lock: {
          path: file,
          release() {
            if (lockOwner(file) === process.pid) unlinkQuietly(file);
          },
        },
      };
    }
    // Another process created that generation first: look again at who holds the lock.
  }
  const newest = newestGeneration(path);
  return { heldBy: (newest < 0 ? undefined : lockOwner(generationFile(path, newest))) ?? 0 };
}
