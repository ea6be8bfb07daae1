// A child process for the session-lock race test: spins until the shared start time, tries to
// take the lock, prints GOT or held, and keeps what it took until the test closes its stdin (every
// taker has answered): a holder gone sooner leaves a stale lock that a taker started late may take.
import { acquireSessionLock } from '../core/session-lock.js';

const [path, startAt] = process.argv.slice(2);
while (Date.now() < Number(startAt)) {
  // Every taker tries in the same millisecond.
}
const taken = acquireSessionLock(path!);
process.stdout.write('lock' in taken ? 'GOT\n' : 'held\n');
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
