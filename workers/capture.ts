// Runs `/bin/sh -c COMMAND` for `capture`, `io.popen` and `os.execute`: in its own process group
// (so a timeout can kill everything it started), without blocking the worker's event loop.
import { spawn } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import { constants } from 'node:os';
import type { ChildPidTable } from './child-pids.js';

/** Most stdout one capture may collect before it is stopped. */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;

export interface CaptureOptions {
  cwd: string;
  /** Bytes written to the command's stdin; without it, stdin is /dev/null. */
  stdin?: Buffer;
  pids: ChildPidTable | null;
  onStderr(text: string): void;
}

export type CaptureOutcome = { ok: true; stdout: Buffer; code: number } | { ok: false; message: string };

// Every command waits for a go line on fd 3, sent once its pid is recorded: a worker terminated
// between `spawn` and recording would otherwise leave a process nobody knows to kill. If the worker
// dies first, fd 3 closes, `read` fails and the shell exits without running anything.
const GATE = 'read -r _ <&3 || exit 125';
// A command that is not valid UTF-8 cannot travel as a spawn argument (Node encodes arguments as
// UTF-8), so it follows the go line on fd 3 and is evaluated from there, byte for byte.
const EVAL_FROM_FD3 = `${GATE}; s=$(cat <&3; printf x); exec 3<&-; eval "\${s%x}"`;

export function runShell(command: Buffer, options: CaptureOptions): Promise<CaptureOutcome> {
  const direct = isUtf8(command);
  const script = direct ? `${GATE}; exec 3<&-\n${command.toString('utf8')}` : EVAL_FROM_FD3;
  const child = spawn('/bin/sh', ['-c', script], {
    cwd: options.cwd,
    detached: true,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined && options.pids && !options.pids.record(child.pid)) {
    child.kill('SIGKILL');
    return Promise.resolve({ ok: false, message: 'too many processes started by one call' });
  }
  const gate = child.stdio[3] as NodeJS.WritableStream;
  gate.on('error', () => undefined);
  gate.write('go\n');
  if (direct) gate.end();
  else gate.end(command);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_CAPTURE_BYTES) {
        overflow = true;
        killGroup(child.pid);
        return;
      }
      chunks.push(chunk);
    });
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (text: string) => options.onStderr(text.replace(/\n$/, '')));
    if (options.stdin) child.stdin!.end(options.stdin);
    child.stdin?.on('error', () => undefined);
    child.on('error', (error) => resolve({ ok: false, message: `cannot start /bin/sh: ${error.message}` }));
    child.on('close', (code, signal) => {
      if (overflow) {
        resolve({ ok: false, message: `the command printed more than ${MAX_CAPTURE_BYTES / 1024 / 1024} MiB; write large output to a file instead` });
        return;
      }
      const exitCode = code ?? 128 + signalNumber(signal);
      resolve({ ok: true, stdout: Buffer.concat(chunks), code: exitCode });
    });
  });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal ? constants.signals[signal] : 0;
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is already gone.
  }
}
