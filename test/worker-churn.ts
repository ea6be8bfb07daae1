// A child process for the worker-load stress test: cancels calls at random moments in their first
// few tens of ms, so their workers are terminated while they load (the worker module, wasmoon, the
// config), again and again, beside healthy calls whose answers are checked. Prints a JSON summary;
// a native abort in Node's module loader would end this process with SIGABRT instead.
// Usage: node worker-churn.js STATE_DIR CANCELS MAX_SECONDS
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { FIXTURES } from './helpers.js';

const [stateDir, cancels, maxSeconds] = process.argv.slice(2);
const host = await ToolHost.start({
  config: join(FIXTURES, 'faults', 'init.lua'),
  stateDir: stateDir!,
  maxThreadsPerModule: 2,
});
const deadline = Date.now() + Number(maxSeconds) * 1000;
let cancelled = 0;
let healthy = 0;
let wrong = 0;

// A call that never ends by itself: each one is cancelled — while it waits, while its worker
// loads, or while it runs — so every round terminates workers (an echo on a warm worker answered
// before its cancel, and a run of warm workers once left too few terminated to test anything).
async function cancelSoon(): Promise<void> {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), Math.random() * 40);
  const result = await host.call('spin', {}, { signal: controller.signal });
  if (result.status === 'cancelled') cancelled++;
  // Its own time limit (0.5 s) only if the machine held the cancel back that long.
  else if (result.status !== 'timeout') wrong++;
}

async function healthyCall(i: number): Promise<void> {
  const result = await host.call('echo', { text: `h${i}` });
  if (result.status === 'ok' && result.content === `h${i}`) healthy++;
  else wrong++;
}

let i = 0;
for (; i < Number(cancels) && Date.now() < deadline; i += 3) {
  await Promise.all([cancelSoon(), cancelSoon(), cancelSoon(), ...(i % 30 === 0 ? [healthyCall(i)] : [])]);
}
await host.close();
process.stdout.write(`${JSON.stringify({ calls: i, cancelled, healthy, wrong })}\n`);
