// memory-per-module: how much a process's RSS grows per module once each of 20 modules has been
// called, against 20 bare piscina pools holding one wasmoon engine each. Each side runs in fresh
// child processes, alternating, so neither inherits the other's heap.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compare, type ScenarioResult } from './scenario.js';
import { median } from './stats.js';

const MODULES = 20;
const ROUNDS = 3;
const CHILD = fileURLToPath(new URL('./module-memory-child.js', import.meta.url));

function growthPerPool(kind: 'moonpool' | 'bare'): number {
  const child = spawnSync(process.execPath, [CHILD, kind, String(MODULES)], { encoding: 'utf8', timeout: 300_000 });
  if (child.status !== 0)
    throw new Error(`memory-per-module (${kind}) failed: ${child.stderr.trim() || `exit ${child.status}`}`);
  return (JSON.parse(child.stdout) as { bytesPerPool: number }).bytesPerPool / 2 ** 20;
}

export function memoryPerModule(): Promise<ScenarioResult> {
  const moonpool: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    moonpool.push(growthPerPool('moonpool'));
    bare.push(growthPerPool('bare'));
  }
  const result = compare(
    'memory-per-module',
    'MiB RSS',
    median(moonpool),
    { name: 'bare piscina pool + wasmoon', value: median(bare) },
    { max: 1.1 },
  );
  return Promise.resolve({ ...result, note: `${MODULES} modules, each called once` });
}
