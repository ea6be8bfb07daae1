// Paths of the benchmark fixtures, and a ToolHost started on one with a throwaway state dir.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolHost } from '../core/index.js';

export const BENCH_FIXTURES = fileURLToPath(new URL('../../bench/fixtures/', import.meta.url));

export async function withHost<T>(fixture: string, use: (host: ToolHost) => Promise<T>): Promise<T> {
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-'));
  const host = await ToolHost.start({ config: join(BENCH_FIXTURES, fixture, 'init.lua'), stateDir, cwd: stateDir });
  try {
    return await use(host);
  } finally {
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}
