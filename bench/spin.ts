// The spin fixture (bench/fixtures/spin): two CPU-bound modules and a quick one. Here: how many
// steps of its loop take a given time (measured in-process with wasmoon), and warming a module's
// workers before a measurement.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LuaFactory } from 'wasmoon';
import type { CallResult, ToolHost } from '../core/index.js';
import { BENCH_FIXTURES } from './fixtures.js';
import { median } from './stats.js';

export const SPIN_FIXTURE = 'spin';
export const SPIN_CONFIG = join(BENCH_FIXTURES, SPIN_FIXTURE, 'init.lua');
/** The loop itself, a Lua chunk that returns `function(n)`. */
export const SPIN_SOURCE = join(BENCH_FIXTURES, SPIN_FIXTURE, 'lua', 'spin.lua');

/** How long the loop runs before it is timed: V8 first runs wasmoon's code unoptimized. */
const WARM_UP_MS = 1000;
const WARM_UP_STEPS = 10_000;
/** One calibration sample takes at least this much CPU, so that timer and call costs vanish in it. */
const SAMPLE_CPU_MS = 5;
const BATCH = 10;
/** Batches stop when one is no more than this share faster than the fastest before it. */
const STEADY = 0.05;
const CALIBRATION_LIMIT_MS = 10_000;
/** Rounds of warming calls before a module's workers must all be running. */
const WARM_ROUNDS = 3;

/**
 * Steps of the loop that take about `targetMs` of CPU in in-process wasmoon on this machine:
 * timed in CPU time, so that other programs' load does not count, once V8 has optimized
 * wasmoon's code (its compiler threads count in the process's CPU time while it does), and
 * sampled in batches until the fastest batch's median stops improving.
 */
export async function spinSteps(targetMs: number): Promise<number> {
  const engine = await new LuaFactory().createEngine();
  try {
    const spin = (await engine.doString(readFileSync(SPIN_SOURCE, 'utf8'))) as (n: number) => number;
    const warmUntil = performance.now() + WARM_UP_MS;
    while (performance.now() < warmUntil) spin(WARM_UP_STEPS);
    const cpuMs = (steps: number): number => {
      const before = process.cpuUsage();
      spin(steps);
      const { user, system } = process.cpuUsage(before);
      return (user + system) / 1000;
    };
    let steps = WARM_UP_STEPS;
    while (cpuMs(steps) < SAMPLE_CPU_MS) steps *= 2;
    const batch = (): number => median(Array.from({ length: BATCH }, () => cpuMs(steps)));
    const deadline = performance.now() + CALIBRATION_LIMIT_MS;
    let fastest = batch();
    for (let next = batch(); next < fastest * (1 - STEADY) && performance.now() < deadline; next = batch())
      fastest = next;
    return Math.max(1, Math.round((steps * targetMs) / fastest));
  } finally {
    engine.global.close();
  }
}

/** Calls `tool` (spin_a, spin_b or quick) and throws unless the call succeeded. */
export async function callOk(host: ToolHost, tool: string, args: Record<string, unknown>): Promise<CallResult> {
  const result = await host.call(tool, args);
  if (result.status !== 'ok') throw new Error(`${tool}: ${result.status}: ${result.content}`);
  return result;
}

/** The pool statistics of the module that serves `tool` (its file is lua/<tool>.lua). */
export function moduleStats(host: ToolHost, tool: string): { alive: number; busy: number } {
  const entry = Object.entries(host.stats().modules).find(([module]) => module.endsWith(`/${tool}.lua`));
  if (!entry) throw new Error(`no module serves ${tool}`);
  return entry[1];
}

/**
 * Starts `workers` workers of the module serving `tool`, each given a short call (`steps` of
 * spin, or none for `quick`), all made at once; throws if fewer are running after a few rounds.
 */
export async function warmWorkers(host: ToolHost, tool: string, workers: number, steps: number): Promise<void> {
  const args = tool === 'quick' ? {} : { n: steps };
  for (let round = 0; round < WARM_ROUNDS; round++) {
    await Promise.all(Array.from({ length: workers }, () => callOk(host, tool, args)));
    if (moduleStats(host, tool).alive >= workers) return;
  }
  throw new Error(`${tool}: ${moduleStats(host, tool).alive} of ${workers} workers running after warming`);
}
