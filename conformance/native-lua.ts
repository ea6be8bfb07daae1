// The control: a suite file run by the system's `lua5.4`, in the suite's folder, as `all.lua` would.
import { spawn, spawnSync } from 'node:child_process';
import { failureLocation } from './failure-location.js';
import type { FileOutcome } from './file-outcome.js';
import { HARNESS_PRELUDE } from './suite-files.js';

export const NATIVE_LUA = 'lua5.4';

/** Whether `lua5.4` can be run; the message to show when it cannot. */
export function nativeLuaProblem(): string | null {
  const probe = spawnSync(NATIVE_LUA, ['-v'], { encoding: 'utf8' });
  if (probe.error) return `${NATIVE_LUA} is not installed (apt-get install lua5.4): ${probe.error.message}`;
  return null;
}

/** Runs `file` in `dir` with `lua5.4`, killing it after `timeoutMs`. */
export function runNative(dir: string, file: string, timeoutMs: number): Promise<FileOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(NATIVE_LUA, ['-e', HARNESS_PRELUDE, file], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      if (code === 0) return resolve({ passed: true, ms, failure: '', detail: '' });
      const detail = signal ? `killed by ${signal} (limit ${timeoutMs} ms)` : stderr;
      resolve({ passed: false, ms, failure: signal ? 'timeout' : failureLocation(stderr), detail });
    });
  });
}
