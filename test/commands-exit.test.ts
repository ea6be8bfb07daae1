// Every command exits when asked, whatever a worker does: a tool whose thread is blocked in a
// system call that terminating cannot interrupt (opening a FIFO on a file system whose open()
// hangs: test/hung-mount.cts, preloaded) no longer keeps `moonpool call`, `moonpool mcp` or the
// dashboard (in a real terminal, tmux) alive, and a long-lived host reports the thread as stuck
// while its other tools keep answering.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { stuckAfterMs } from '../core/index.js';
import { CLI, eventually, FIXTURES, tempDir } from './helpers.js';

const CONFIG = join(FIXTURES, 'stuck');
/** The preload that makes opens under a `hung-mount` directory block (node --require). */
const HUNG_MOUNT = fileURLToPath(new URL('./hung-mount.cjs', import.meta.url));
const STUCK_HOST = fileURLToPath(new URL('./stuck-host.js', import.meta.url));
/** The contract is 2 s on an idle machine: the stuck thread's second, then one for the rest; a loaded one stretches both. */
const exitWithinMs = (): number => 2 * stuckAfterMs();
const SCHEDULING_MARGIN_MS = 1_000;

const children = new Set<ChildProcessWithoutNullStreams>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

function fifo(): string {
  const mount = join(tempDir(), 'hung-mount');
  mkdirSync(mount);
  const path = join(mount, 'never-written');
  execFileSync('mkfifo', [path]);
  return path;
}

function cli(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: string | null; at: number }>;
  stderr: () => string;
} {
  const child = spawn(
    process.execPath,
    ['--require', HUNG_MOUNT, CLI, ...args, '--config', CONFIG, '--state-dir', tempDir()],
    { stdio: 'pipe' },
  );
  children.add(child);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, at: performance.now() });
    }),
  );
  return { child, exited, stderr: () => stderr };
}

/** A JSON-RPC conversation with `moonpool mcp` over its stdio: send requests, await answers by id. */
function mcpSession(
  child: ChildProcessWithoutNullStreams,
): (id: number, method: string, params: unknown) => Promise<Record<string, unknown>> {
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    const lines = (partial + text).split('\n');
    partial = lines.pop()!;
    for (const line of lines.filter(Boolean)) {
      const message = JSON.parse(line) as Record<string, unknown>;
      waiting.get(message['id'] as number)?.(message);
    }
  });
  return (id, method, params) =>
    new Promise((resolve) => {
      waiting.set(id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
}

async function mcpWithStuckThread(): Promise<ReturnType<typeof cli>> {
  const server = cli(['mcp']);
  const request = mcpSession(server.child);
  await request(1, 'initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'exit-test', version: '1' },
  });
  server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const [blocked, echoed] = await Promise.all([
    request(2, 'tools/call', { name: 'block', arguments: { fifo: fifo() } }),
    request(3, 'tools/call', { name: 'echo', arguments: { text: 'still here' } }),
  ]);
  assert.match(JSON.stringify(blocked['result']), /timed out after 0\.3 s/);
  assert.deepEqual((echoed['result'] as { content: unknown }).content, [{ type: 'text', text: 'still here' }]);
  return server;
}

function assertPromptExit(askedAt: number, exit: { at: number }, what: string, withinMs: number): void {
  const tookMs = exit.at - askedAt;
  assert.ok(tookMs < withinMs + SCHEDULING_MARGIN_MS, `${what}: exited ${Math.round(tookMs)} ms after being asked`);
}

test(
  'moonpool call exits after a tool whose thread is stuck in a system call times out',
  { timeout: 60_000 },
  async () => {
    const run = cli(['call', 'block', JSON.stringify({ fifo: fifo() })]);
    const exit = await run.exited;
    assert.equal(exit.signal, 'SIGKILL', run.stderr());
    assert.match(run.stderr(), /block: timed out after 0\.3 s/);
    assert.match(run.stderr(), /1 worker thread is stuck in a system call and cannot be stopped/);
    assert.doesNotMatch(run.stderr(), /\n\s+at /, 'no stack trace');
  },
);

test('moonpool call exits normally with the tool status when no thread is stuck', { timeout: 60_000 }, async () => {
  const run = cli(['call', 'echo', '{"text":"hi"}']);
  let stdout = '';
  run.child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  const exit = await run.exited;
  assert.deepEqual([exit.code, stdout], [0, 'hi\n']);
});

for (const [how, ask] of [
  ['stdin EOF', (child: ChildProcessWithoutNullStreams) => child.stdin.end()],
  ['SIGTERM', (child: ChildProcessWithoutNullStreams) => child.kill('SIGTERM')],
  ['SIGINT', (child: ChildProcessWithoutNullStreams) => child.kill('SIGINT')],
] as const) {
  test(`moonpool mcp with a stuck worker thread exits within 2 s of ${how}`, { timeout: 60_000 }, async () => {
    const server = await mcpWithStuckThread();
    const askedAt = performance.now();
    const withinMs = exitWithinMs();
    ask(server.child);
    const exit = await server.exited;
    assertPromptExit(askedAt, exit, `mcp after ${how}`, Math.max(withinMs, exitWithinMs()));
    assert.match(server.stderr(), /stuck in a system call/);
  });
}

test(
  'a long-lived host counts the stuck thread, keeps serving, and closes within 2 s',
  { timeout: 60_000 },
  async () => {
    const path = fifo();
    const child = spawn(process.execPath, ['--require', HUNG_MOUNT, STUCK_HOST, tempDir(), path], { stdio: 'pipe' });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    try {
      assert.ok(await eventually(() => stdout.includes('\n'), 30_000), 'the host reported nothing');
      const report = JSON.parse(stdout) as {
        blocked: string;
        beside: string[];
        stuckThreads: number;
        after: string[];
        closeMs: number;
      };
      assert.equal(report.blocked, 'timeout');
      assert.deepEqual(report.beside, ['ok', 'beside it']);
      assert.equal(report.stuckThreads, 1);
      assert.deepEqual(report.after, ['ok', 'and after']);
      assert.ok(report.closeMs < exitWithinMs() + SCHEDULING_MARGIN_MS, `close took ${Math.round(report.closeMs)} ms`);
    } finally {
      // A process with a stuck thread cannot exit by itself: that is what the commands handle.
      child.kill('SIGKILL');
    }
  },
);

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

for (const [how, quitKeys] of [
  ['/quit', ['/quit', 'Enter']],
  ['Ctrl-C', ['C-c']],
] as const) {
  test(
    `the dashboard exits within 2 s of ${how} with a stuck thread and a call running`,
    { timeout: 60_000 },
    async () => {
      const session = `moonpool-exit-${process.pid}-${how === '/quit' ? 'quit' : 'ctrl-c'}`;
      const dir = tempDir();
      const command = `${process.execPath} --require ${HUNG_MOUNT} ${CLI} --config ${CONFIG} --state-dir ${join(dir, 'state')}; echo "EXITED $?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '30', command);
      const screen = (): string => tmux('capture-pane', '-t', session, '-p');
      const keys = (...typed: string[]): void => void tmux('send-keys', '-t', session, ...typed);
      try {
        assert.ok(await eventually(() => screen().includes('Type a tool name'), 15_000), screen());
        // The first call's thread is stuck once it has timed out (its time starts after the load);
        // the second is cancelled by the quit while it is stuck.
        keys(`block {"fifo":"${fifo()}"}`, 'Enter');
        assert.ok(await eventually(() => /block .*timeout/.test(screen()), 15_000), screen());
        keys(`block_long {"fifo":"${fifo()}"}`, 'Enter');
        assert.ok(await eventually(() => screen().includes('1 running'), 10_000), screen());
        const askedAt = performance.now();
        const withinMs = exitWithinMs();
        keys(...quitKeys);
        assert.ok(await eventually(() => screen().includes('EXITED'), 25_000), screen());
        assertPromptExit(
          askedAt,
          { at: performance.now() },
          `the dashboard after ${how}`,
          Math.max(withinMs, exitWithinMs()),
        );
        assert.match(screen(), /stuck in a system call/);
        assert.doesNotMatch(screen(), /\n\s+at /);
      } finally {
        spawnSync('tmux', ['kill-session', '-t', session]);
      }
    },
  );
}
