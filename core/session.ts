// A session's identity and its directories under the state dir: spill files live in
// `<stateDir>/spill/<sessionId>/`, which exists before any tool runs.
import { mkdirSync } from 'node:fs';
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

export function openSession(stateDir: string, id: string): SessionPaths {
  const spillDir = join(stateDir, 'spill', id);
  mkdirSync(spillDir, { recursive: true, mode: 0o700 });
  return { id, spillDir };
}
