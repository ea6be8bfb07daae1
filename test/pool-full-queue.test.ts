// A pool whose queue is full when its running call's thread is ended: the pool must still start a
// worker for the calls waiting, even when that thread never exits (stuck in a system call, as on a
// hung network mount), so that no waiting call is stranded.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { eventually, FIXTURES, ROOT, tempDir } from './helpers.js';

const CORE_URL = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;

const children = new Set<ReturnType<typeof spawn>>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** A FIFO no one writes to, under a directory whose opens block (see test/hung-mount.cts). */
function hungFifo(): string {
  const mount = join(tempDir(), 'hung-mount');
  mkdirSync(mount);
  const path = join(mount, 'never-written');
  execFileSync('mkfifo', [path]);
  return path;
}

/** Runs `script` (an ES module) in a child node with the hung-mount preload; its first line of output, or undefined after `waitMs`. */
async function childLine(script: string, args: string[], waitMs: number): Promise<string | undefined> {
  const preload = fileURLToPath(new URL('./hung-mount.cjs', import.meta.url));
  const child = spawn(process.execPath, ['--require', preload, '--input-type=module', '-e', script, ...args], { stdio: 'pipe' });
  children.add(child);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  try {
    return (await eventually(() => stdout.includes('\n'), waitMs)) ? stdout.split('\n')[0] : undefined;
  } finally {
    // A process with a stuck thread cannot exit by itself.
    child.kill('SIGKILL');
    children.delete(child);
  }
}

for (const how of ['times out', 'is cancelled'] as const) {
  test(`at maxThreads 1 and maxQueue 1, the call queued behind one whose thread is stuck in a system call runs when that one ${how}`, { timeout: 90_000 }, async () => {
    // The queued call is the whole queue: a worker started for it must not need a place in it.
    // Its own limits are short, so that a call stranded unpicked ends (as a timeout) within the wait.
    const script = `
      const { ToolHost } = await import(${JSON.stringify(CORE_URL)});
      const [config, stateDir, fifo, how] = process.argv.slice(1);
      const host = await ToolHost.start({ config, stateDir, cwd: stateDir, maxThreadsPerModule: 1, maxQueuePerModule: 1, loadTimeoutMs: 3000, timeoutMs: 3000 });
      const controller = new AbortController();
      const blocked = host.call(how === 'times out' ? 'block' : 'block_long', { fifo }, { signal: controller.signal });
      const queued = host.call('echo', { text: 'queued behind it' });
      if (how !== 'times out') setTimeout(() => controller.abort(), 500);
      const results = await Promise.all([blocked, queued]);
      process.stdout.write(JSON.stringify(results.map((result) => [result.status, result.content])) + '\\n');
    `;
    const line = await childLine(script, [join(FIXTURES, 'stuck', 'init.lua'), tempDir(), hungFifo(), how], 60_000);
    assert.ok(line !== undefined, 'the queued call never ended');
    const [blocked, queued] = JSON.parse(line) as [string, string][];
    assert.equal(blocked![0], how === 'times out' ? 'timeout' : 'cancelled');
    assert.deepEqual(queued, ['ok', 'queued behind it']);
  });
}
