// The session lock under races: however many processes find a stale lock at the same moment,
// exactly one of them takes it. A stale lock is never removed to make room for the taker: the
// taker makes a free slot of the lock and checks the others (see core/session-lock.ts).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { acquireSessionLock, liveLockHolder } from '../core/session-lock.js';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, tempDir } from './helpers.js';

const TAKERS = 6;

async function race(path: string): Promise<string[]> {
  const startAt = Date.now() + 400;
  const takers = Array.from({ length: TAKERS }, () =>
    spawn(process.execPath, [join(ROOT, 'dist', 'test', 'lock-taker.js'), path, String(startAt)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  );
  const exited = takers.map((taker) => once(taker, 'exit'));
  // A taker that started late (a loaded machine) still finds the holder alive: holders keep the
  // lock until every taker has answered.
  const answers = await Promise.all(
    takers.map(async (taker, i) => {
      let out = '';
      taker.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await Promise.race([once(taker.stdout, 'data'), exited[i]]);
      return out.trim();
    }),
  );
  for (const taker of takers) taker.stdin.end();
  await Promise.all(exited);
  return answers;
}

test('processes that find a stale lock at the same moment: exactly one takes it', { timeout: 120_000 }, async () => {
  for (let round = 0; round < 4; round++) {
    const path = join(tempDir(), 'session.log.lock');
    // A pid no process has: the lock of a writer that crashed.
    writeFileSync(path, '2147483646\n');
    const answers = await race(path);
    assert.equal(answers.filter((answer) => answer === 'GOT').length, 1, `round ${round}: ${answers.join(' ')}`);
  }
});

/** A pid no process has: the lock of a writer that crashed. */
const GONE = '2147483646\n';

test('a stale lock is taken in a free slot and the stale slots removed; released, the lock is free again', () => {
  const dir = tempDir();
  const path = join(dir, 'session.log.lock');
  writeFileSync(path, GONE);
  writeFileSync(`${path}.1`, 'not a pid\n');
  const taken = acquireSessionLock(path);
  assert.ok('lock' in taken);
  assert.equal(taken.lock.path, `${path}.2`);
  assert.deepEqual(readdirSync(dir), ['session.log.lock.2']);
  assert.equal(liveLockHolder(path), process.pid);
  // Held by this process (a second host on the same session): it counts as live.
  assert.deepEqual(acquireSessionLock(path), { heldBy: process.pid });
  taken.lock.release();
  assert.equal(existsSync(`${path}.2`), false);
  assert.equal(liveLockHolder(path), undefined);
  const again = acquireSessionLock(path);
  assert.ok('lock' in again);
  assert.equal(again.lock.path, path);
  again.lock.release();
});

test('every slot holding a stale lock (planted): nothing is taken or removed, and the lock reads as held', () => {
  const dir = tempDir();
  const path = join(dir, 'session.log.lock');
  const names = ['session.log.lock', ...Array.from({ length: 7 }, (_, slot) => `session.log.lock.${slot + 1}`)];
  for (const name of names) writeFileSync(join(dir, name), GONE);
  assert.deepEqual(acquireSessionLock(path), { heldBy: 2147483646 });
  assert.deepEqual(readdirSync(dir).sort(), names.sort());
});

test('a lock whose pid a later process was given is stale, and taken', (t) => {
  if (!existsSync('/proc/self/stat')) return t.skip('no /proc: a lock holds only its pid here');
  const path = join(tempDir(), 'reused.log.lock');
  // A process takes the lock and exits without releasing it (killed) ...
  const holder = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { acquireSessionLock } from ${JSON.stringify(join(ROOT, 'dist', 'core', 'session-lock.js'))};
       if (!('lock' in acquireSessionLock(${JSON.stringify(path)}))) process.exit(1);`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(holder.status, 0, holder.stderr);
  // ... and its pid is given to another live process later (this one stands in for it).
  const line = readFileSync(path, 'utf8');
  writeFileSync(path, line.replace(/^\d+/, String(process.pid)));
  const taken = acquireSessionLock(path);
  assert.ok('lock' in taken, `${JSON.stringify(taken)}: the lock said ${JSON.stringify(line)}`);
  taken.lock.release();
  assert.equal(liveLockHolder(path), undefined);
});
