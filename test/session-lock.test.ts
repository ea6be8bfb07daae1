// The session lock under races: however many processes find a stale lock at the same moment,
// exactly one of them takes it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT, tempDir } from './helpers.js';

const TAKERS = 6;

async function race(path: string): Promise<string[]> {
  const startAt = Date.now() + 400;
  const takers = Array.from({ length: TAKERS }, () => spawn(process.execPath, [join(ROOT, 'dist', 'test', 'lock-taker.js'), path, String(startAt)], { stdio: ['ignore', 'pipe', 'inherit'] }));
  const answers = await Promise.all(
    takers.map(async (taker) => {
      let out = '';
      taker.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await once(taker, 'exit');
      return out.trim();
    }),
  );
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
