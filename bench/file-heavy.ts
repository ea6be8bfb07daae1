// file-heavy: what declared permissions cost a tool that reads many files. The same Lua runs with
// full access and with `read = { '.' }` (each open then judged on its descriptor), in alternating
// rounds, over 1,000 source-like files of about 3 KB: `scan` counts lines and words (the goal: at
// most 5% slower guarded), `slurp` only opens, reads and closes (the check's cost alone), `emit`
// writes as many files of formatted lines into out/ (`write = { 'out' }` when guarded).
// Each figure is the median over rounds of guarded ÷ full access within one round: a shared
// machine's speed drifts by more than the check costs, and both halves of a round meet the same drift.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { BENCH_FIXTURES } from './fixtures.js';
import { within, type ScenarioResult } from './scenario.js';
import { median, timeInterleaved } from './stats.js';

const FILES = 1000;
const ROUNDS = 21;

function sourceLike(seed: number): string {
  const lines: string[] = [];
  for (let line = 0; line < 80; line++) {
    const indent = '  '.repeat((seed + line) % 4);
    lines.push(`${indent}local value_${line} = compute(${seed} + ${line}, 'item ${(seed * 31 + line) % 97}') -- note`);
  }
  return `${lines.join('\n')}\n`;
}

/** Times `open` and `guarded` in alternating rounds: the median of guarded ÷ open, and open's median in ms. */
async function timePair(host: ToolHost, open: string, guarded: string): Promise<[number, number]> {
  const call = (tool: string) => async (): Promise<void> => {
    const result = await host.call(tool, { count: FILES });
    if (result.status !== 'ok') throw new Error(`${tool}: ${result.status} ${result.content}`);
  };
  const [plain, checked] = await timeInterleaved(ROUNDS, 1, 1, call(open), call(guarded));
  return [median(checked.map((ms, round) => ms / (plain[round] ?? Number.NaN))), median(plain)];
}

function judged(name: string, [ratio, openMs]: [number, number], goal: { max?: number }): ScenarioResult {
  const note = `full access: ${openMs.toPrecision(3)} ms median`;
  return within(name, '× full access (median of rounds)', ratio, goal, note);
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
    return [
      judged('file-heavy', await timePair(host, 'scan', 'scan_guarded'), { max: 1.05 }),
      judged('file-open-only', await timePair(host, 'slurp', 'slurp_guarded'), {}),
      judged('file-writes', await timePair(host, 'emit', 'emit_guarded'), {}),
    ];
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
