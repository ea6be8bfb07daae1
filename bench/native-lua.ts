// The native `lua5.4` baselines: present or not, and one process run timed end to end.
import { execFile, spawnSync } from 'node:child_process';

export const NATIVE_LUA = 'lua5.4';

export function hasNativeLua(): boolean {
  return spawnSync(NATIVE_LUA, ['-v'], { stdio: 'ignore' }).status === 0;
}

/** Runs `lua5.4 -e code` and resolves with its stdout. */
export function runNativeLua(code: string, cwd?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(NATIVE_LUA, ['-e', code], { cwd }, (error, stdout) =>
      error ? reject(new Error(`${NATIVE_LUA} failed: ${error.message}`)) : resolve(stdout),
    );
  });
}
