// A child process for the session-log tests: appends records to a session log as fast as it can
// and prints how many are complete, until it is killed.
import { SessionLog } from '../core/session-log.js';

const [stateDir, sessionId] = process.argv.slice(2);
const log = SessionLog.open(stateDir!, sessionId!);
for (let i = 1; ; i++) {
  log.append({ callId: `c${i}`, tool: 'writer', args: { i }, status: 'ok', content: 'x'.repeat(1000 + (i % 5000)), durationMs: i, finishedAt: Date.now() });
  process.stdout.write(`${i}\n`);
}
