// A session's identity and its directories under the state dir: spill files live in
// `<stateDir>/spill/<sessionId>/`, created before the session's first call; other sessions'
// spill directories are pruned once they are older than the retention period.
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

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
  mkdirSync(paths.spillDir, { recursive: true, mode: 0o700 });
}

/** Removes spill directories of other sessions not modified for `maxAgeDays`; returns how many. */
export function pruneSpillDirs(stateDir: string, keep: string, maxAgeDays: number, now = Date.now()): number {
  const root = join(stateDir, 'spill');
  if (!existsSync(root)) return 0;
  let removed = 0;
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === keep) continue;
    const dir = join(root, entry.name);
    if (now - statSync(dir).mtimeMs < maxAgeDays * 86_400_000) continue;
    rmSync(dir, { recursive: true, force: true });
    removed++;
  }
  return removed;
}
