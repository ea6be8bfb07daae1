// A child process for the retention tests: scans nothing until it reads a line on stdin (so two
// of them start pruning together), then applies a 1-day age limit to the state dir and prints
// the ids it removed as JSON.
import { createInterface } from 'node:readline';
import { pruneSessions } from '../core/session-retention.js';

const [stateDir] = process.argv.slice(2);
process.stdout.write('ready\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'go') break;
}
const { removed } = pruneSessions(stateDir!, { maxAgeDays: 1, maxTotalBytes: Infinity }, undefined);
process.stdout.write(`${JSON.stringify(removed)}\n`);
