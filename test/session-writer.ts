// A child process for the session-log tests: appends records to a session log and prints how many
// are complete, until it is killed. The first FAST_RECORDS go as fast as it can; after that one
// every 10 ms, and after a minute it exits with code 3 — a test that fails to kill it gets a clear
// failure, never a full disk.
import { setTimeout as sleep } from 'node:timers/promises';
import { SessionLog } from '../core/session-log.js';

const FAST_RECORDS = 2_000;
const GIVE_UP_MS = 60_000;
const [stateDir, sessionId] = process.argv.slice(2);
const log = SessionLog.open(stateDir!, sessionId!);
const started = Date.now();
for (let i = 1; Date.now() - started < GIVE_UP_MS; i++) {
  log.append({
    callId: `c${i}`,
    tool: 'writer',
    args: { i },
    status: 'ok',
    content: 'x'.repeat(1000 + (i % 5000)),
    durationMs: 0,
    finishedAt: Date.now(),
  });
  process.stdout.write(`${i}\n`);
  if (i > FAST_RECORDS) await sleep(10);
}
process.exit(3);
