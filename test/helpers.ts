// Shared test plumbing: fixture paths, temporary state dirs, hosts that are always closed, and
// checks that nothing (worker, child process) outlives a test.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { ToolHost, type ToolHostOptions } from '../core/index.js';

/** The repository root (tests run from dist/test/). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES = join(ROOT, 'test', 'fixtures');
export const EXAMPLES = join(ROOT, 'examples');
export const FIXTURE_BIN = join(FIXTURES, 'bin');
export const CLI = join(ROOT, 'dist', 'ui', 'cli.js');

/** A directory removed when the test file finishes. */
export function tempDir(prefix = 'moonpool-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Starts a host on a fixture config (a name under test/fixtures, or a path); closed after the file. */
export async function startHost(config: string, options: ToolHostOptions = {}): Promise<ToolHost> {
  const host = await ToolHost.start({
    config: config.startsWith('/') ? config : join(FIXTURES, config),
    stateDir: tempDir(),
    ...options,
  });
  after(() => host.close());
  return host;
}

/** Live (non-zombie) processes whose command line contains `needle`. */
export function liveProcesses(needle: string): string[] {
  const table = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' });
  return table
    .split('\n')
    .filter((line) => line.includes(needle) && !line.trimStart().startsWith('Z') && !line.includes('ps -eo'));
}

/**
 * A command line for which file permissions hold, to meet a real EACCES: as root, the same command
 * under `setpriv` without the capabilities that bypass permissions (root stays root, so a checkout
 * in a private directory stays reachable); as anyone else, the command as it is. `skip` says why
 * it cannot be done here (root without `setpriv`).
 */
export function permissionsEnforced(
  command: string,
  args: string[],
): { command: string; args: string[] } | { skip: string } {
  if (process.getuid?.() !== 0) return { command, args };
  const probe = spawnSync('setpriv', ['--version'], { encoding: 'utf8' });
  if (probe.error)
    return {
      skip: `as root, file permissions are met only without CAP_DAC_OVERRIDE, and setpriv (util-linux) is not installed: ${probe.error.message}`,
    };
  return { command: 'setpriv', args: ['--bounding-set=-dac_override,-dac_read_search', '--', command, ...args] };
}

/** A number unique to this test run, to tell this test's `sleep` processes from any other. */
export function uniqueSeconds(): string {
  return `600.${process.pid}${Math.floor(Math.random() * 1e6)}`;
}

/**
 * Polls `check` until it holds or `timeoutMs` passes; returns whether it held. The default is
 * generous: on a loaded machine a killed worker's exit (and its processes' end) is seen late, and
 * waiting costs nothing when the check holds.
 */
export async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

/** Runs `work`; how long it took and the longest the event loop went without turning meanwhile, in ms. */
export async function stallsDuring<T>(
  work: () => Promise<T>,
): Promise<{ value: T; elapsedMs: number; stallMs: number }> {
  const startedAt = performance.now();
  let last = startedAt;
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  try {
    const value = await work();
    const now = performance.now();
    return { value, elapsedMs: now - startedAt, stallMs: Math.max(stallMs, now - last) };
  } finally {
    clearInterval(ticker);
  }
}

/** Why a test cannot have a small disk of its own here: mounting a tmpfs needs root (CAP_SYS_ADMIN). */
export const NO_SMALL_DISK = 'mounting a tmpfs to fill needs root (CAP_SYS_ADMIN)';

/**
 * A tmpfs of `size` (e.g. `64k`) and at most `inodes` files, if given, mounted on a fresh directory, unmounted and
 * removed after the file; undefined where this process may not mount one (the test then skips with NO_SMALL_DISK).
 */
export function smallDisk(size: string, inodes?: number): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'moonpool-disk-'));
  const options = inodes === undefined ? `size=${size}` : `size=${size},nr_inodes=${inodes}`;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  after(() => {
    execFileSync('umount', ['-l', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
