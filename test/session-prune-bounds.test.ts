// Pruning expired sessions lists the sessions directory once for all of them, not once each: the
// cost of removing a few hundred sessions barely grows with the thousands of sessions kept beside
// them (one listing each made it grow with their product). Checked by comparing the two costs,
// never by a fixed bound.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { pruneSessions } from '../core/index.js';
import { tempDir } from './helpers.js';

const DAY_MS = 86_400_000;
const EXPIRED = 200;

/** A state dir of `expired` sessions last written 40 days ago and `kept` written now, each a small log. */
function stateDirWith(expired: number, kept: number): string {
  const stateDir = tempDir();
  const sessions = join(stateDir, 'sessions');
  mkdirSync(sessions);
  const old = new Date(Date.now() - 40 * DAY_MS);
  for (let index = 0; index < expired; index++) {
    const path = join(sessions, `old-${index}.log`);
    writeFileSync(path, 'x');
    utimesSync(path, old, old);
  }
  for (let index = 0; index < kept; index++) writeFileSync(join(sessions, `new-${index}.log`), 'x');
  return stateDir;
}

function pruneMs(kept: number): number {
  const stateDir = stateDirWith(EXPIRED, kept);
  const start = performance.now();
  const pruned = pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: Infinity }, undefined);
  const elapsed = performance.now() - start;
  assert.equal(pruned.removed.length, EXPIRED);
  assert.equal(readdirSync(join(stateDir, 'sessions')).length, kept);
  return elapsed;
}

test('removing expired sessions beside thousands of kept ones costs about what it costs beside none', () => {
  pruneMs(0);
  const alone = Math.min(pruneMs(0), pruneMs(0), pruneMs(0));
  const beside = Math.min(pruneMs(10_000), pruneMs(10_000));
  const ratio = beside / Math.max(alone, 1);
  assert.ok(ratio < 3, `beside 10,000 kept sessions, removing ${EXPIRED} took ${ratio.toFixed(1)} times as long (${alone.toFixed(0)} ms, ${beside.toFixed(0)} ms)`);
});
