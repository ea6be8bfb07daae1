// How the CLI leaves when something would keep the process alive for good. A worker thread that
// cannot be stopped: Node's own exit waits for every worker thread to end, and a thread blocked in
// a system call never does. After saying so and flushing its output, the process ends itself with
// SIGKILL (exit status 137, the one status outside 0/1/2); everything it had to write is written by
// then. Output nobody reads (an MCP client gone quiet): a pending write to a full pipe keeps Node's
// event loop alive, so after a bounded wait the process exits without it.

/** How long output may take to drain: a reader that went away must not keep the process either. */
const FLUSH_WAIT_MS = 500;

/** Whether what was written to `stream` got out within FLUSH_WAIT_MS. */
function flushed(stream: NodeJS.WritableStream): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), FLUSH_WAIT_MS);
    stream.write('', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export async function exitLeavingStuckThreads(
  stuckThreads: number,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
): Promise<never> {
  const threads = stuckThreads === 1 ? '1 worker thread is' : `${stuckThreads} worker threads are`;
  stderr.write(
    `moonpool: ${threads} stuck in a system call and cannot be stopped; exiting without waiting for ${stuckThreads === 1 ? 'it' : 'them'}\n`,
  );
  await Promise.all([flushed(stdout), flushed(stderr)]);
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL is not delivered synchronously on every platform: never return into the caller.
  return new Promise<never>(() => undefined);
}

/** Exits (with process.exitCode) when `stdout` does not take what is left within FLUSH_WAIT_MS. */
export async function exitLeavingUnreadOutput(stdout: NodeJS.WritableStream): Promise<void> {
  if (!(await flushed(stdout))) process.exit();
}
