// hostile-args: the host's event-loop delay (p99) while hostile arguments are validated — long
// digit strings against `\d+-\d+`, a nested quantifier, several patterns on one call, a long
// "email", a 20,000-value enum, a million items to compare, a tree 60 deep against a schema whose
// two oneOf branches both recurse, a huge unknown tool name — beside a
// baseline of the same calls with benign arguments. Goal: p99 ≤ 50 ms. Also reported: the
// slowest of the argument checks alone (median of 5 runs each), which excludes what else the host
// does with such a call (recording it in the session log, collecting its garbage).
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import type { ToolHost } from '../core/index.js';
import { argumentProblems } from '../core/arguments.js';
import { compileParameters, createSchemaCompiler } from '../core/schema-compiler.js';
import { median } from './stats.js';
import { TEST_FIXTURES, withHost } from './fixtures.js';
import { compare, type ScenarioResult } from './scenario.js';

const GOAL_P99_MS = 50;
const ROUNDS = 6;

type Call = [tool: string, args: unknown];

// Built before measuring: making a 4 M-character string is the caller's work, not the host's.
function hostileCalls(): Call[] {
  const many = Array.from({ length: 10_000 }, (_, i) => ({ a: i, b: [i] }));
  return [
    ['ranges', { range: '1'.repeat(4_000_000) }],
    ['ranges', { range: '1'.repeat(40_000) }],
    ['ranges', { slug: `${'a'.repeat(40_000)}!` }],
    ['ranges', { email: `${'a.'.repeat(150_000)}@x` }],
    [
      'codes',
      {
        date: '1'.repeat(20_000),
        word: `${'a-'.repeat(20_000)}-`,
        hex: `${'ab'.repeat(20_000)}a`,
        tags: Array.from({ length: 2_000 }, () => 'x'.repeat(41)),
      },
    ],
    ['picks', { one: 'nope' }],
    ['picks', { many: Array.from({ length: 2_000 }, (_, i) => `wrong-${i}`) }],
    ['picks', { things: Array.from({ length: 1_000_000 }, (_, i) => i) }],
    ['picks', { things: [...many, { b: [7], a: 7 }] }],
    ['trees', { tree: nested(60) }],
    ['x'.repeat(1_000_000), {}],
  ];
}

function nested(depth: number): unknown {
  return depth === 0 ? 1 : [nested(depth - 1)];
}

function benignCalls(): Call[] {
  return [
    ['ranges', { range: '12-34' }],
    ['ranges', { range: '1234-5678' }],
    ['ranges', { slug: 'aaaa' }],
    ['ranges', { email: 'someone@example.org' }],
    ['codes', { date: '2026-12-01', word: 'well-formed', hex: 'abcdef', tags: ['a', 'b.c', 'd-e'] }],
    ['picks', { one: 'v20000' }],
    ['picks', { many: ['v1', 'v2', 'v3'] }],
    ['picks', { things: [1, 2, 3] }],
    ['picks', { things: [{ a: 1 }, { a: 2 }] }],
    ['trees', { tree: ['a', 'b', 'c', 'd', 'e', 'f'] }],
  ];
}

/** p99 and max of the event-loop delay, in ms, while every call is made ROUNDS times, one at a time. */
async function loopDelayDuring(host: ToolHost, calls: Call[]): Promise<{ p99: number; max: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [tool, args] of calls) {
      // As requests from a client arrive: each in its own turn of the event loop.
      await new Promise(setImmediate);
      await host.call(tool, args);
    }
  }
  histogram.disable();
  return { p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}

/**
 * The most CPU time the host spends on one hostile call, in ms, its session-log record included
 * (written within 20 ms): what it would stall the event loop for on an otherwise idle machine.
 */
async function mostCpuPerCall(host: ToolHost, calls: Call[]): Promise<{ ms: number; tool: string }> {
  let most = { ms: 0, tool: '' };
  for (const [tool, args] of calls) {
    const started = process.cpuUsage();
    await host.call(tool, args);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const used = process.cpuUsage(started);
    const ms = (used.user + used.system) / 1000;
    if (ms > most.ms) most = { ms, tool };
  }
  return most;
}

/**
 * The slowest argument check alone, in ms of CPU time (the machine's load does not stretch it; the
 * host is idle meanwhile): for each call the median of 5, then the maximum.
 */
function slowestCheck(host: ToolHost, calls: Call[]): { ms: number; tool: string } {
  const compiler = createSchemaCompiler();
  const validators = new Map(host.tools().map((tool) => [tool.name, compileParameters(compiler, tool.parameters)]));
  let slowest = { ms: 0, tool: '' };
  for (const [tool, args] of calls) {
    const compiled = validators.get(tool);
    if (!compiled || !('validate' in compiled)) continue;
    const durations = Array.from({ length: 5 }, () => {
      const started = process.cpuUsage();
      argumentProblems(compiled.validate, args);
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1000;
    });
    if (median(durations) > slowest.ms) slowest = { ms: median(durations), tool };
  }
  return slowest;
}

export async function hostileArgs(): Promise<ScenarioResult[]> {
  return withHost(
    'hostile-args',
    async (host) => {
      const hostile = hostileCalls();
      const benign = benignCalls();
      for (const [tool, args] of benign) await host.call(tool, args);
      const baseline = await loopDelayDuring(host, benign);
      const measured = await loopDelayDuring(host, hostile);
      const check = slowestCheck(host, hostile);
      const perCall = await mostCpuPerCall(host, hostile);
      const note = `${hostile.length} hostile calls × ${ROUNDS} rounds, one at a time; max ${measured.max.toFixed(1)} ms (benign max ${baseline.max.toFixed(1)} ms); load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`;
      const goal = { name: 'the goal', value: GOAL_P99_MS };
      return [
        { ...compare('hostile-args-p99', 'ms loop delay', measured.p99, goal, { max: 1 }), note },
        {
          ...compare('hostile-args-benign-p99', 'ms loop delay', baseline.p99, goal, {}),
          note: 'the same calls with benign arguments',
        },
        {
          ...compare('hostile-args-check', 'ms CPU slowest', check.ms, goal, {}),
          note: `the argument check alone, median of 5 (${check.tool})`,
        },
        {
          ...compare('hostile-args-call-cpu', 'ms CPU most', perCall.ms, goal, {}),
          note: `one hostile call, its log record included, warm (${perCall.tool})`,
        },
      ];
    },
    TEST_FIXTURES,
  );
}
