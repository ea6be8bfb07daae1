// Pruning expired sessions lists the sessions directory once for all of them, not once each: beside
// thousands of kept sessions, removing eight times as many expired ones costs about the same (a
// listing per removal made the cost grow with their product, eightfold). Checked by comparing the
// two costs in CPU time (what a loaded machine's other work does not add to), never by a fixed bound.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pruneSessions } from '../core/index.js';
import { tempDir } from './helpers.js';

const DAY_MS = 86_400_000;
const KEPT = 10_000;

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

function pruneMs(expired: number): number {
  const stateDir = stateDirWith(expired, KEPT);
  const start = process.cpuUsage();
  const pruned = pruneSessions(stateDir, { maxAgeDays: 30, maxTotalBytes: Infinity }, undefined);
  const { user, system } = process.cpuUsage(start);
  const elapsed = (user + system) / 1000;
  assert.equal(pruned.removed.length, expired);
  assert.equal(readdirSync(join(stateDir, 'sessions')).length, KEPT);
  return elapsed;
}

test('removing eight times as many expired sessions beside thousands of kept ones costs about the same', () => {
  pruneMs(50);
  const few = Math.min(pruneMs(50), pruneMs(50), pruneMs(50));
  const many = Math.min(pruneMs(400), pruneMs(400), pruneMs(400));
  const ratio = many / Math.max(few, 1);
  assert.ok(
    ratio < 3,
    `beside ${KEPT} kept sessions, removing 400 took ${ratio.toFixed(1)} times the CPU time of removing 50 (${few.toFixed(0)} ms, ${many.toFixed(0)} ms)`,
  );
});
