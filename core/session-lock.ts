// Who writes a session's log: a lock beside it naming the writer's pid (and, on Linux, its start time
// and pid namespace, so a pid reused by another process is not taken for it); only its holder may cut a
// torn tail, so no process truncates bytes another live process wrote. The lock has slots, `<path>`
// and `<path>.1` … `.7`, each made with a link (which fails when the name exists) holding its
// maker's pid; the live process named in any holds it. A taker that finds none makes a free slot,
// looks at the others again and backs off if one names a live process; only a holder removes stale
// slots, and never to make room (decision 0024). Slots are found by name, never by listing.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  linkSync,
  openSync,
  readlinkSync,
  readSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { exists, statFields } from '../shared/process-sweep.js';

export interface SessionLock {
  /** The lock file this process holds. */
  readonly path: string;
  /** Removes the lock if it is still this process's. */
  release(): void;
}

/** Longest lock file read: a pid, its start time and pid namespace, and a newline. */
const MAX_LOCK_BYTES = 128;
/** The lock's slots: `<path>` and `<path>.1` up to `<path>.<SLOTS - 1>`. */
const SLOTS = 8;
/** Attempts to take a lock whose slots keep changing before this process says who holds it. */
const MAX_ATTEMPTS = 8;
/** Longest pause between two attempts (ms), drawn at random so that two takers fall out of step. */
const MAX_BACKOFF_MS = 3;
const pause = new Int32Array(new SharedArrayBuffer(4));

/** A slot's file and its owner: a pid, undefined when it holds none, null when there is no such file. */
type Slot = { file: string; owner: number | undefined | null };

/** When process `pid` started (clock ticks since boot, /proc/<pid>/stat field 22), undefined where that cannot be read. */
function startTime(pid: number): string | undefined {
  return statFields(pid)?.[19];
}

/** This process's pid namespace (`pid:[…]`), undefined where that cannot be read. */
const OWN_NAMESPACE = ((): string | undefined => {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
})();

/**
 * What a lock file says of its maker: its pid, and (on Linux) its start time and pid namespace, so that a process
 * given the same pid later is not taken for it.
 */
function ownerLine(): string {
  const start = startTime(process.pid);
  return start === undefined || OWN_NAMESPACE === undefined
    ? `${process.pid}\n`
    : `${process.pid} ${start} ${OWN_NAMESPACE}\n`;
}

/**
 * The pid a lock file's text names, undefined when it names none, or a process of this pid namespace that started
 * at another time than the lock's maker (its pid reused since): that lock is stale. A lock made in another pid
 * namespace (another container) names a pid that means nothing here: it is judged by its pid, as a lock of a pid alone.
 */
function ownerOf(text: string): number | undefined {
  const [, pidText, start, namespace] = /^(\d+)(?: (\d+) (\S+))?$/.exec(text.trim()) ?? [];
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0) return undefined;
  if (start === undefined || namespace !== OWN_NAMESPACE) return pid;
  const now = startTime(pid);
  return now === undefined || now === start ? pid : undefined;
}

/**
 * The pid in a lock file, undefined when it holds none (an empty or garbled file, or something that is not a regular
 * file: a FIFO in its place is never read, since that would wait forever), null when there is no such file.
 */
function lockOwner(path: string): number | undefined | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
    if (!fstatSync(fd).isFile()) return undefined;
    const buffer = Buffer.alloc(MAX_LOCK_BYTES);
    return ownerOf(buffer.toString('utf8', 0, readSync(fd, buffer, 0, MAX_LOCK_BYTES, 0)));
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** What each slot of the lock at `path` holds now. */
function slots(path: string): Slot[] {
  return Array.from({ length: SLOTS }, (_, slot): Slot => {
    const file = slot === 0 ? path : `${path}.${slot}`;
    return { file, owner: lockOwner(file) };
  });
}

/** The pid of a live process named in one of `seen` (but `except`), or undefined. */
function liveIn(seen: Slot[], except?: string): number | undefined {
  return (
    seen.find(({ file, owner }) => typeof owner === 'number' && file !== except && exists(owner))?.owner ?? undefined
  );
}

/** The pid in the lock file `file` (one slot) when its process is alive. */
export function lockFileHolder(file: string): number | undefined {
  return liveIn([{ file, owner: lockOwner(file) }]);
}

/** The pid of the live process holding the lock at `path`, or undefined when none does. */
export function liveLockHolder(path: string): number | undefined {
  return liveIn(slots(path));
}

/** Creates the lock file with its pid already in it (a link of a written file), so no reader sees it empty; false when it exists. */
function tryCreate(file: string): boolean {
  const written = `${file}.${process.pid}-${randomBytes(3).toString('hex')}`;
  try {
    // Created, then written: a write that fails (a full disk) must not leave the file behind.
    writeFileSync(written, ownerLine(), { flag: 'wx', mode: 0o600 });
    linkSync(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkQuietly(written);
  }
}

export function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Gone already (removed by another process).
  }
}

/**
 * Takes the lock at `path`, or returns the pid of the live process holding it; this process
 * holding it already (a second host on the same session) counts as live. Stale slots are removed
 * by the process that took the lock. Throws only for an fs failure other than a slot existing.
 */
export function acquireSessionLock(path: string): { lock: SessionLock } | { heldBy: number } {
  let last: Slot[] = [];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) Atomics.wait(pause, 0, 0, Math.random() * MAX_BACKOFF_MS);
    last = slots(path);
    const holder = liveIn(last);
    if (holder !== undefined) return { heldBy: holder };
    const free = last.find((slot) => slot.owner === null);
    // Every slot holds a stale lock (planted, or crashes with no taker between them): the
    // session is written beside its log, as when the lock is held.
    if (free === undefined) break;
    if (!tryCreate(free.file)) continue;
    const seen = slots(path);
    if (liveIn(seen, free.file) !== undefined) {
      // Another process holds it, or took a slot at the same moment: both give theirs up and try again.
      unlinkQuietly(free.file);
      continue;
    }
    for (const slot of seen) if (slot.owner !== null && slot.file !== free.file) unlinkQuietly(slot.file);
    const release = (): void => {
      if (lockOwner(free.file) === process.pid) unlinkQuietly(free.file);
    };
    return { lock: { path: free.file, release } };
  }
  // Who holds it is not settled: the pid a slot names, live or not, is what a caller can report.
  return { heldBy: last.find((slot) => typeof slot.owner === 'number')?.owner ?? 0 };
}
