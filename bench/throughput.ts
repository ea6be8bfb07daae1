// throughput: no-op calls per second with 64 in flight over 4 modules, against the same load on
// bare worker_threads running wasmoon (as many workers as moonpool runs: 4 modules × 2), each
// given one request at a time as moonpool's are; the pipelined figure is reported beside it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { BarePool } from './bare-pool.js';
import { compare, type ScenarioResult } from './scenario.js';

const MODULES = 4;
const WORKERS_PER_MODULE = 2;
const IN_FLIGHT = 64;
const WARMUP_CALLS = 5000;
const MEASURE_MS = 3000;

/** Calls per second while `call` is kept `IN_FLIGHT` deep for `MEASURE_MS`. */
async function callsPerSecond(call: (i: number) => Promise<unknown>): Promise<number> {
  let issued = 0;
  const keepGoing = async (until: number): Promise<number> => {
    let done = 0;
    while (performance.now() < until) {
      await call(issued++);
      done++;
    }
    return done;
  };
  let warmed = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (warmed < WARMUP_CALLS) {
        warmed++;
        await call(issued++);
      }
    }),
  );
  const started = performance.now();
  const counts = await Promise.all(Array.from({ length: IN_FLIGHT }, () => keepGoing(started + MEASURE_MS)));
  return counts.reduce((sum, count) => sum + count, 0) / ((performance.now() - started) / 1000);
}

export async function throughput(): Promise<ScenarioResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'moonpool-bench-throughput-'));
  mkdirSync(join(dir, 'lua'));
  const requires: string[] = [];
  for (let m = 0; m < MODULES; m++) {
    writeFileSync(
      join(dir, 'lua', `module_${m}.lua`),
      `agent.on('discover_tools', function(r) r:add { name = 'noop_${m}', description = 'Returns ok.', run = function() return 'ok' end } end)\n`,
    );
    requires.push(`require('module_${m}')`);
  }
  writeFileSync(join(dir, 'init.lua'), `${requires.join('\n')}\n`);
  const host = await ToolHost.start({
    config: join(dir, 'init.lua'),
    stateDir: join(dir, 'state'),
    cwd: dir,
    maxThreadsPerModule: WORKERS_PER_MODULE,
  });
  const lua = "function handle(argument) return 'ok' end";
  const bare = await BarePool.start(MODULES * WORKERS_PER_MODULE, lua, true);
  const pipelined = await BarePool.start(MODULES * WORKERS_PER_MODULE, lua, false);
  try {
    const moonpool = await callsPerSecond((i) => host.call(`noop_${i % MODULES}`, {}));
    const baseline = await callsPerSecond((i) => bare.call({ i }));
    const baselinePipelined = await callsPerSecond((i) => pipelined.call({ i }));
    return [
      compare(
        'throughput',
        'calls/s',
        moonpool,
        { name: 'bare workers, one call each at a time', value: baseline },
        { min: 0.4 },
      ),
      {
        ...compare(
          'throughput-pipelined',
          'calls/s',
          moonpool,
          { name: 'bare workers, calls pipelined', value: baselinePipelined },
          {},
        ),
        note: 'informational',
      },
    ];
  } finally {
    await Promise.all([host.close(), bare.close(), pipelined.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
