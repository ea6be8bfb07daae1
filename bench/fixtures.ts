// Paths of the benchmark fixtures, and a ToolHost started on one with a throwaway state dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolHost, type ToolHostOptions } from '../core/index.js';

export const BENCH_FIXTURES = fileURLToPath(new URL('../../bench/fixtures/', import.meta.url));
/** The tests' fixtures, for a bench that measures what a test attacks (the same config for both). */
export const TEST_FIXTURES = fileURLToPath(new URL('../../test/fixtures/', import.meta.url));

export async function withHost<T>(
  fixture: string,
  use: (host: ToolHost) => Promise<T>,
  fixtures = BENCH_FIXTURES,
  options: Omit<ToolHostOptions, 'config' | 'stateDir' | 'cwd'> = {},
): Promise<T> {
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-'));
  const host = await ToolHost.start({
    ...options,
    config: join(fixtures, fixture, 'init.lua'),
    stateDir,
    cwd: stateDir,
  });
  try {
    return await use(host);
  } finally {
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
