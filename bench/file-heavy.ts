// file-heavy: what declared permissions cost a tool that reads many files. The same Lua runs with
// full access and with `read = { '.' }` (each open then judged on its descriptor), in alternating
// rounds, over 1,000 source-like files of about 3 KB: `scan` counts lines and words (the goal: at
// most 5% slower guarded), `slurp` only opens, reads and closes (the check's cost alone), `emit`
// writes as many files of formatted lines into out/ (`write = { 'out' }` when guarded).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { BENCH_FIXTURES } from './fixtures.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median, timeInterleaved } from './stats.js';

const FILES = 1000;
const ROUNDS = 15;

function sourceLike(seed: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 80; line++) {
    const indent = '  '.repeat((seed + line) % 4);
    lines.push(`${indent}local value_${line} = compute(${seed} + ${line}, 'item ${(seed * 31 + line) % 97}') -- note`);
  }
  return `${lines.join('\n')}\n`;
}

async function timePair(host: ToolHost, open: string, guarded: string): Promise<[number, number]> {
  const call = (tool: string) => async (): Promise<void> => {
    const result = await host.call(tool, { count: FILES });
    if (result.status !== 'ok') throw new Error(`${tool}: ${result.status} ${result.content}`);
  };
  const [plain, checked] = await timeInterleaved(ROUNDS, 1, 1, call(open), call(guarded));
  return [median(plain), median(checked)];
}

export async function fileHeavy(): Promise<ScenarioResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'moonpool-bench-files-'));
  const cwd = join(dir, 'work');
  mkdirSync(join(cwd, 'out'), { recursive: true });
  for (let i = 1; i <= FILES; i++) writeFileSync(join(cwd, `f${i}.txt`), sourceLike(i));
  const host = await ToolHost.start({
    config: join(BENCH_FIXTURES, 'files', 'init.lua'),
    stateDir: join(dir, 'state'),
    cwd,
  });
  try {
    const [scan, scanGuarded] = await timePair(host, 'scan', 'scan_guarded');
    const [slurp, slurpGuarded] = await timePair(host, 'slurp', 'slurp_guarded');
    const [emit, emitGuarded] = await timePair(host, 'emit', 'emit_guarded');
    return [
      compare('file-heavy', 'ms median', scanGuarded, { name: 'same tool, full access', value: scan }, { max: 1.05 }),
      compare('file-open-only', 'ms median', slurpGuarded, { name: 'same tool, full access', value: slurp }, {}),
      compare('file-writes', 'ms median', emitGuarded, { name: 'same tool, full access', value: emit }, {}),
    ];
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
