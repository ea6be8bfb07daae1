// A child process of memory-per-module: starts N pools (moonpool's, through a ToolHost on a config
// of N modules, or bare piscina pools holding one wasmoon engine each), calls each once, and prints
// the growth of its RSS per pool as JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Piscina } from 'piscina';
import { ToolHost } from '../core/index.js';
import { generateModules } from './generated-modules.js';

const [kind, countText] = process.argv.slice(2);
const count = Number(countText);

async function moonpoolGrowth(): Promise<number> {
  const modules = generateModules(count);
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-'));
  const host = await ToolHost.start({ config: modules.config, stateDir, cwd: stateDir });
  try {
    const before = process.memoryUsage.rss();
    for (const name of modules.toolNames) {
      const result = await host.call(name, {});
      if (result.status !== 'ok') throw new Error(`${name}: ${result.content}`);
    }
    return (process.memoryUsage.rss() - before) / count;
  } finally {
    await host.close();
    rmSync(stateDir, { recursive: true, force: true });
    modules.remove();
  }
}

async function bareGrowth(): Promise<number> {
  const before = process.memoryUsage.rss();
  const pools = Array.from(
    { length: count },
    () =>
      new Piscina({
        filename: new URL('./bare-piscina-task.js', import.meta.url).href,
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: 60_000,
      }),
  );
  for (const pool of pools) await pool.run(null);
  const growth = (process.memoryUsage.rss() - before) / count;
  await Promise.all(pools.map((pool) => pool.destroy()));
  return growth;
}

const growth = kind === 'bare' ? await bareGrowth() : await moonpoolGrowth();
process.stdout.write(JSON.stringify({ bytesPerPool: growth }));
