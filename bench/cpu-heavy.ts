// cpu-heavy: naive recursive fib through moonpool against the same Lua in-process in wasmoon
// (the goal: at most 5% slower) and, for reference, native `lua5.4`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LuaFactory } from 'wasmoon';
import { BENCH_FIXTURES, withHost } from './fixtures.js';
import { hasNativeLua, NATIVE_LUA, runNativeLua } from './native-lua.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median, timeEach } from './stats.js';

const N = 32;
const RUNS = 5;
const EXPECTED = '2178309';

async function inProcessWasmoonMs(): Promise<number> {
  const engine = await new LuaFactory().createEngine();
  const source = readFileSync(join(BENCH_FIXTURES, 'cpu', 'fib.lua'), 'utf8');
  await engine.doString(`fib = (function() ${source} end)()`);
  const durations = await timeEach(RUNS, 1, async () => {
    await engine.doString(`result = tostring(fib(${N}))`);
    if (engine.global.get('result') !== EXPECTED) throw new Error('in-process wasmoon computed the wrong number');
  });
  engine.global.close();
  return median(durations);
}

export async function cpuHeavy(): Promise<ScenarioResult[]> {
  const moonpool = await withHost('cpu', async (host) =>
    median(
      await timeEach(RUNS, 1, async () => {
        const result = await host.call('fib', { n: N });
        if (result.content !== EXPECTED) throw new Error(`moonpool computed ${result.content}`);
      }),
    ),
  );
  const results = [
    compare(
      'cpu-heavy',
      'ms median',
      moonpool,
      { name: 'in-process wasmoon', value: await inProcessWasmoonMs() },
      { max: 1.05 },
    ),
  ];
  if (hasNativeLua()) {
    const code = `package.path = ${JSON.stringify(join(BENCH_FIXTURES, 'cpu', '?.lua'))}; io.write(require('fib')(${N}))`;
    const native = median(await timeEach(RUNS, 1, () => runNativeLua(code)));
    results.push(
      compare('cpu-heavy-vs-native', 'ms median', moonpool, { name: `native ${NATIVE_LUA}`, value: native }, {}),
    );
  }
  return results;
}
