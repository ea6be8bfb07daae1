// One command of `capture`, `io.popen` or `os.execute`: `/bin/sh -c COMMAND`, or a program and its
// arguments that the shell only `exec`s. It runs in its own process group, tagged, in its task's
// cgroup where there is one, and recorded in the task's row before it runs anything. Its stdout is
// collected, streamed or logged; its stderr is logged. Every wait is a promise.
import type { ChildProcess } from 'node:child_process';
import { isUtf8 } from 'node:buffer';
import { accessSync, constants as fsConstants, statSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { PROCESS_TAG_VARIABLE, sigkill } from '../shared/process-sweep.js';
import { lineSplitter } from './output-natives.js';
import { MAX_LIVE_GROUPS, type TaskRow } from '../shared/task-table.js';
import { within } from '../shared/within.js';
import { lowerThisThread } from './thread-priority.js';

/** Most stdout `capture` collects from one command before it is stopped. */
export const MAX_CAPTURE_BYTES = 64 * 1024 * 1024;
/** How far a streamed command's unread output may run ahead of its reader before it is paused. */
const STREAM_AHEAD_BYTES = 1024 * 1024;
/** How long after the exit logged output may still arrive; a pipe open past this is a background process's. */
const LOG_GRACE_MS = 50;

/** What becomes of the command's stdout: kept whole (`capture`), read in pieces (`popen 'r'`), or logged. */
export type StdoutUse = 'collect' | 'stream' | 'log';

export interface ShellOptions {
  cwd: string;
  stdout: StdoutUse;
  /** The caller writes the command's stdin (`popen 'w'`); otherwise stdin is /dev/null. */
  writable: boolean;
  /** Where the process group is recorded, and whose tag it carries; null: neither (outside a task, or kept). */
  taskRow: TaskRow | null;
  /** Where stderr (and logged stdout) goes, a line at a time. */
  log: (text: string) => void;
  /** The command's environment (the tag is added). */
  env: NodeJS.ProcessEnv;
}

/** How the command ended: an exit code, or the number of the signal that ended `/bin/sh`. */
export interface ExitStatus {
  code: number | null;
  signal: number | null;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };
export type WriteOutcome = { ok: true } | { ok: false; message: string; errno: number };

// The tag of a command no task tracks (kept): set, so no sweep takes it for a leader that cleared it.
const UNTRACKED_TAG = 'untracked';

// Every command waits for a go line on fd 3, sent once its pid is recorded: if the worker dies
// first, fd 3 closes and the shell exits without running anything nobody knows to kill.
const GATE = 'read -r _ <&3 || exit 125';
// Past the gate the shell becomes `sh -c COMMAND` as popen(3) starts it (named `sh`), so the
// command is parsed alone and the shell's messages number its own lines from 1.
const SHELL_COMMAND = `${GATE}; exec 3<&-; exec /bin/sh -c "$1" sh`;
// A command that is not valid UTF-8 cannot be a spawn argument: it follows the go line on fd 3.
const SHELL_COMMAND_FROM_FD3 = `${GATE}; s=$(cat <&3; printf x); exec 3<&-; exec /bin/sh -c "\${s%x}" sh`;
// A program and its arguments: past the gate the shell becomes the program, nothing parsed.
const EXEC_ARGUMENTS = `${GATE}; exec 3<&-; exec "$0" "$@"`;

export class ShellProcess {
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;
  private overflow = false;
  private ended = false;
  private wakeReader: (() => void) | undefined;
  private readonly exited: Promise<ExitStatus>;
  private readonly stdoutEnded: Promise<void>;
  private readonly logsEnded: Promise<unknown>;

  /** Starts the command, or says why it could not start (a system error, or the call's process limit). */
  static async start(command: Buffer | string[], options: ShellOptions): Promise<Outcome<ShellProcess>> {
    const task = options.taskRow;
    const cgroup = task ? task.table.cgroup(task.row) : null;
    const direct = Array.isArray(command) || isUtf8(command);
    // The shell joins the cgroup first: nothing it starts can be outside it.
    const join = cgroup === null ? '' : `echo $$ > '${cgroup.replaceAll("'", `'\\''`)}/cgroup.procs' || exit 125; `;
    const shellArguments = Array.isArray(command)
      ? ['-c', join + EXEC_ARGUMENTS, programPath(command[0]!), ...command.slice(1)]
      : direct
        ? ['-c', join + SHELL_COMMAND, 'sh', command.toString('utf8')]
        : ['-c', join + SHELL_COMMAND_FROM_FD3, 'sh'];
    let child: ChildProcess;
    // A command inherits the nice value of the thread that starts it: commands run lowered.
    lowerThisThread();
    try {
      // Loaded on the first command: child_process brings net, dgram and more.
      child = process.getBuiltinModule('node:child_process').spawn('/bin/sh', shellArguments, {
        cwd: options.cwd,
        detached: true,
        env: { ...options.env, [PROCESS_TAG_VARIABLE]: task ? task.table.tag(task.row) : UNTRACKED_TAG },
        stdio: [options.writable ? 'pipe' : 'ignore', 'pipe', 'pipe', 'pipe'],
      });
    } catch (error) {
      return { ok: false, message: startFailure(error, options.cwd) };
    }
    if (child.pid === undefined) {
      return new Promise((resolve) =>
        child.once('error', (error) => resolve({ ok: false, message: startFailure(error, options.cwd) })),
      );
    }
    child.on('error', () => undefined);
    if (task && !task.table.record(task.row, child.pid)) {
      sigkill(-child.pid);
      const message = `too many processes: a call may have at most ${MAX_LIVE_GROUPS} commands running at once`;
      return { ok: false, message };
    }
    const gate = child.stdio[3] as Writable;
    gate.on('error', () => undefined);
    gate.write('go\n');
    if (direct) gate.end();
    else gate.end(command);
    return { ok: true, value: new ShellProcess(child, options) };
  }

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: ShellOptions,
  ) {
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) =>
        resolve({ code, signal: signal === null ? null : constants.signals[signal] }),
      ),
    );
    const stdout = child.stdout!;
    this.stdoutEnded = new Promise((resolve) => stdout.once('close', resolve));
    child.stdin?.on('error', () => undefined);
    const logged = options.stdout === 'log' ? [child.stderr!, stdout] : [child.stderr!];
    this.logsEnded = Promise.all(logged.map((stream) => logLines(stream, options.log)));
    if (options.stdout !== 'log') stdout.on('data', (chunk: Buffer) => this.take(chunk));
    stdout.once('end', () => {
      this.ended = true;
      this.wake();
    });
  }

  private take(chunk: Buffer): void {
    // Collected stdout is never read before the end: what is pending is all it printed.
    if (this.options.stdout === 'collect' && this.pendingBytes + chunk.length > MAX_CAPTURE_BYTES) {
      this.overflow = true;
      sigkill(-this.child.pid!);
      this.child.stdout!.destroy();
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.options.stdout === 'stream' && this.pendingBytes > STREAM_AHEAD_BYTES) this.child.stdout!.pause();
    this.wake();
  }

  private wake(): void {
    this.wakeReader?.();
    this.wakeReader = undefined;
  }

  /** All of a streamed stdout that has arrived, waiting for some; null once the command closed its stdout. */
  async read(): Promise<Buffer | null> {
    while (this.pending.length === 0 && !this.ended) {
      await new Promise<void>((resolve) => (this.wakeReader = resolve));
    }
    if (this.pending.length === 0) return null;
    // One piece per wait costs Lua a yield per 64 KiB; everything that arrived costs one.
    const arrived = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.child.stdout!.resume();
    return arrived;
  }

  /** Writes to the command's stdin once it has taken the bytes, or says why it could not. */
  write(bytes: Buffer): Promise<WriteOutcome> {
    const stdin = this.child.stdin;
    if (!stdin || stdin.destroyed || stdin.writableEnded) return Promise.resolve(BROKEN_PIPE);
    return new Promise((resolve) => stdin.write(bytes, (error) => resolve(error ? BROKEN_PIPE : { ok: true })));
  }

  /**
   * Closes stdin and an unread stream (as `pclose`: a command still writing gets SIGPIPE) and waits
   * for the exit; collected stdout is waited for to its end, as `$(…)` does.
   */
  async finish(): Promise<Outcome<ExitStatus & { stdout: Buffer }>> {
    this.child.stdin?.end();
    if (this.options.stdout === 'stream') this.forget();
    const [status] = await Promise.all([this.exited, this.options.stdout === 'collect' ? this.stdoutEnded : undefined]);
    await within(this.logsEnded, LOG_GRACE_MS);
    if (this.overflow) {
      const message = `the command printed more than ${MAX_CAPTURE_BYTES / 1024 / 1024} MiB; write large output to a file instead`;
      return { ok: false, message };
    }
    return { ok: true, value: { ...status, stdout: Buffer.concat(this.pending) } };
  }

  /** Lets go of the pipes without waiting (a handle Lua collected unclosed); the process runs on until the task ends. */
  forget(): void {
    this.child.stdin?.destroy();
    this.child.stdout!.destroy();
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.ended = true;
    this.wake();
  }
}

const BROKEN_PIPE: WriteOutcome = { ok: false, message: 'Broken pipe', errno: constants.errno.EPIPE };

/** Sends what a stream carries to `log` a line at a time (lineSplitter); resolves at its end. */
function logLines(stream: Readable, log: (text: string) => void): Promise<void> {
  const lines = lineSplitter(log);
  stream.setEncoding('utf8');
  stream.on('data', lines.write);
  return new Promise((resolve) => stream.once('close', () => resolve(lines.flush())));
}

/** A program named without a slash, found on the host's PATH (a tool's command may not see PATH). */
function programPath(program: string): string {
  if (program.includes('/')) return program;
  for (const directory of (process.env['PATH'] ?? '').split(':')) {
    const candidate = `${directory || '.'}/${program}`;
    try {
      accessSync(candidate, fsConstants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // Not here: the next directory.
    }
  }
  return program;
}

/** Why `spawn` failed, naming the working directory when it is the cause. */
function startFailure(error: unknown, cwd: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  let problem: string | undefined;
  if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') {
    try {
      if (!statSync(cwd).isDirectory()) problem = 'is not a directory';
      else accessSync(cwd, fsConstants.X_OK);
    } catch (statError) {
      const statCode = (statError as NodeJS.ErrnoException).code;
      problem = statCode === 'ENOENT' ? 'does not exist' : `cannot be entered (${statCode})`;
    }
  }
  if (problem) return `cannot start the command: the working directory ${cwd} ${problem}`;
  return `cannot start the command: ${error instanceof Error ? error.message : String(error)}`;
}
