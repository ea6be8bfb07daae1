// How the CLI leaves when a worker thread cannot be stopped: Node's own exit waits for every
// worker thread to end, and a thread blocked in a system call never does, so the process would
// stay alive. After saying so and flushing its output, it ends itself with SIGKILL (exit status
// 137, the one status outside 0/1/2); everything it had to write is written by then.

/** How long output may take to drain: a reader that went away must not keep the process either. */
const FLUSH_WAIT_MS = 500;

function flushed(stream: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_WAIT_MS);
    stream.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function exitLeavingStuckThreads(stuckThreads: number, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Promise<never> {
  const threads = stuckThreads === 1 ? '1 worker thread is' : `${stuckThreads} worker threads are`;
  stderr.write(`moonpool: ${threads} stuck in a system call and cannot be stopped; exiting without waiting for ${stuckThreads === 1 ? 'it' : 'them'}\n`);
  await Promise.all([flushed(stdout), flushed(stderr)]);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is not delivered synchronously on every platform: never return into the caller.
  return new Promise<never>(() => undefined);
}
