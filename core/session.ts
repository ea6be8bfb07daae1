// A session's identity and its directories under the state dir: spill files live in
// `<stateDir>/spill/<sessionId>/`, created before the session's first call; other sessions'
// spill directories are pruned once they are older than the retention period. Pruning is
// best-effort: what cannot be read or removed stays.
import { accessSync, constants, readdirSync, rmSync, statSync, type Dirent } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { SESSION_ID_PATTERN } from './host-options.js';
import { makeDirectory } from './make-directory.js';
import { liveLockHolder } from './session-lock.js';

export interface SessionPaths {
  id: string;
  spillDir: string;
}

/** A new session id: the UTC start time and a random suffix, e.g. `20261130-105400-3fa9c1`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export function sessionPaths(stateDir: string, id: string): SessionPaths {
  return { id, spillDir: join(stateDir, 'spill', id) };
}

export function createSpillDir(paths: SessionPaths): void {
  makeDirectory(paths.spillDir, 0o700);
}

/** A spill file's name: `<tool>-<call id>.txt`, tool names and call ids being of these characters. */
const SPILL_FILE_NAME = /^[A-Za-z0-9_-]+\.txt$/;

/**
 * Whether `dir` is a session's spill directory and nothing else: named like a session id, holding
 * only regular files named like spill files, its session not in use by a live process.
 */
function isIdleSpillDir(stateDir: string, name: string, dir: string): boolean {
  if (!SESSION_ID_PATTERN.test(name)) return false;
  if (liveLockHolder(`${join(stateDir, 'sessions', name)}.log.lock`) !== undefined) return false;
  return readdirSync(dir, { withFileTypes: true }).every((entry) => entry.isFile() && SPILL_FILE_NAME.test(entry.name));
}

/**
 * Removes spill directories of other sessions not modified for `maxAgeDays`; returns how many.
 * A directory that holds anything but spill files, or whose session is in use, stays. Never throws.
 */
export function pruneSpillDirs(stateDir: string, keep: string, maxAgeDays: number, now = Date.now()): number {
  const root = join(stateDir, 'spill');
  let entries: Dirent[];
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return 0;
  }
  let removed = 0;
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name === keep) continue;
    const dir = join(root, entry.name);
    try {
      if (now - statSync(dir).mtimeMs < maxAgeDays * 86_400_000 || !isIdleSpillDir(stateDir, entry.name, dir)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed++;
    } catch {
      // Gone already, or not ours to remove: it stays.
    }
  }
  return removed;
}

/**
 * Why moonpool cannot keep sessions and spill files in `stateDir` (it is a file, or cannot be
 * created or written), or undefined when it can. Creates its directories.
 */
export function stateDirProblem(stateDir: string): string | undefined {
  try {
    for (const dir of [join(stateDir, 'sessions'), join(stateDir, 'spill')]) {
      makeDirectory(dir, 0o700);
      accessSync(dir, constants.W_OK | constants.X_OK);
    }
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way' : (code ?? (error as Error).message);
    return `the state directory ${stateDir} cannot be used (${why}); pass --state-dir or set $XDG_STATE_HOME`;
  }
}
