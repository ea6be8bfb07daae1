// A child process for the exit tests, run with test/hung-mount.cts preloaded: a long-lived host
// whose `block` call leaves its worker thread stuck in the kernel. It reports on stdout, as JSON,
// what the host said then, and how long close() took; the parent kills it afterwards, since a
// process with a stuck thread cannot exit by itself.
import { join } from 'node:path';
import { STUCK_AFTER_MS, ToolHost } from '../core/index.js';
import { FIXTURES } from './helpers.js';

const [stateDir, fifo] = process.argv.slice(2);
const host = await ToolHost.start({ config: join(FIXTURES, 'stuck', 'init.lua'), stateDir: stateDir!, cwd: stateDir! });
const [blocked, beside] = await Promise.all([host.call('block', { fifo }), host.call('echo', { text: 'beside it' })]);
// Counted once its time to exit has passed since it was told to stop: a second on an idle
// machine, at most ten on a loaded one (stuckAfterMs).
const countedBy = Date.now() + 10 * STUCK_AFTER_MS + 2_000;
while (host.stats().stuckThreads === 0 && Date.now() < countedBy)
  await new Promise((resolve) => setTimeout(resolve, 50));
const stuckThreads = host.stats().stuckThreads;
const after = await host.call('echo', { text: 'and after' });
const closing = performance.now();
await host.close();
const closeMs = performance.now() - closing;
process.stdout.write(
  `${JSON.stringify({ blocked: blocked.status, beside: [beside.status, beside.content], stuckThreads, after: [after.status, after.content], closeMs })}\n`,
);
