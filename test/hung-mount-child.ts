// Children that meet a hung mount: a FIFO no one writes to, under a directory whose opens block
// (test/hung-mount.cts, preloaded), and a child node that runs a script with that preload. A
// process with a thread stuck on such a mount cannot exit by itself, so each child is killed.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';
import { eventually, tempDir } from './helpers.js';

/** A FIFO no one writes to, under a directory whose opens block. */
export function hungFifo(): string {
  const mount = join(tempDir(), 'hung-mount');
  mkdirSync(mount);
  const path = join(mount, 'never-written');
  execFileSync('mkfifo', [path]);
  return path;
}

/** Runs `script` (an ES module) in a child node with the hung-mount preload: its first line of output, or undefined after `waitMs`. */
export async function hungMountChildLine(script: string, args: string[], waitMs: number): Promise<string | undefined> {
  const preload = fileURLToPath(new URL('./hung-mount.cjs', import.meta.url));
  const child = spawn(process.execPath, ['--require', preload, '--input-type=module', '-e', script, ...args], {
    stdio: 'pipe',
  });
  after(() => void child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  try {
    return (await eventually(() => stdout.includes('\n'), waitMs)) ? stdout.split('\n')[0] : undefined;
  } finally {
    child.kill('SIGKILL');
  }
}
