// The natives behind `capture` (lua/shell.lua), `io.popen` and `os.execute` (lua/process.lua).
// Each command is a ShellProcess known to Lua by a number. A native that waits returns a promise
// of its values, and the calling Lua thread waits for them (EntryRunner.wait). Every command is let
// go when its task ends (`endTask`), even if a handle to it is kept.
import { NativeError, type NativeFunction } from './lua-natives.js';
import type { TaskScope } from './lua-runtime.js';
import { ShellProcess, type StdoutUse } from './shell-process.js';

/** How each Lua function uses its command. */
const MODES: Record<string, { stdout: StdoutUse; writable: boolean; kept?: true }> = {
  capture: { stdout: 'collect', writable: false },
  /** `capture(cmd, { keep = true })`: neither recorded nor tagged, so the task's end leaves it be. */
  capture_kept: { stdout: 'collect', writable: false, kept: true },
  read: { stdout: 'stream', writable: false },
  write: { stdout: 'log', writable: true },
  execute: { stdout: 'log', writable: false },
};

export function createProcessNatives(
  cwd: string,
  scope: () => TaskScope,
): { natives: Record<string, NativeFunction>; endTask(): void } {
  const commands = new Map<number, ShellProcess>();
  let nextProcess = 1;
  const forget = (id: number): void => {
    commands.get(id)?.forget();
    commands.delete(id);
  };
  const running = (id: number | null): ShellProcess => {
    const found = commands.get(id ?? 0);
    if (!found) throw new NativeError('io.popen: the command ended with the call that started it', 'tool');
    return found;
  };

  // The task's end kills its commands; a handle kept past it must not keep their unread output.
  const endTask = (): void => {
    for (const id of commands.keys()) forget(id);
  };

  const natives: Record<string, NativeFunction> = {
    process_start: (call) => {
      const mode = MODES[call.string(2) ?? ''];
      if (!mode) throw new Error(`unknown process mode ${call.string(2)}`);
      const { taskRow, channel, guard } = scope();
      // A table is a program and its arguments (the prelude checked they are strings), started without a shell.
      const command = call.typeName(1) === 'table' ? (call.value(1, 'command') as string[]) : call.bytes(1)!;
      guard.checkProgram(Array.isArray(command) ? command[0]! : null);
      const { stdout, writable } = mode;
      const log = (text: string): void => channel?.log(text);
      const options = { cwd, stdout, writable, taskRow: mode.kept ? null : taskRow, log, env: guard.environment() };
      return ShellProcess.start(command, options).then((outcome) => {
        if (!outcome.ok) return [null, outcome.message];
        const id = nextProcess++;
        commands.set(id, outcome.value);
        return [id];
      });
    },
    process_read: (call) =>
      running(call.number(1))
        .read()
        .then((chunk) => [chunk]),
    process_write: (call) =>
      running(call.number(1))
        .write(call.bytes(2) ?? Buffer.alloc(0))
        .then((outcome) => (outcome.ok ? [true] : [null, outcome.message, outcome.errno])),
    process_finish: (call) => {
      const id = call.number(1);
      const process = running(id);
      commands.delete(id!);
      // `true, code, signal, stdout` (code or signal nil), or `nil, message`.
      return process
        .finish()
        .then((done) =>
          done.ok ? [true, done.value.code, done.value.signal, done.value.stdout] : [null, done.message],
        );
    },
    process_forget: (call) => {
      forget(call.number(1) ?? 0);
      return [];
    },
  };
  return { natives, endTask };
}
