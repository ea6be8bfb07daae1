// process-per-call: a warm moonpool call against spawning `lua5.4` for each call, the way a
// runtime without resident workers would. The goal is moonpool at least 15 times faster.
import { withHost } from './fixtures.js';
import { hasNativeLua, NATIVE_LUA, runNativeLua } from './native-lua.js';
import { compare, skipped, type ScenarioResult } from './scenario.js';
import { median, timeEach, timeInterleaved } from './stats.js';

export async function processPerCall(): Promise<ScenarioResult> {
  return withHost('noop', async (host) => {
    if (!hasNativeLua()) {
      const moonpool = median(await timeEach(1000, 200, () => host.call('noop', {})));
      return skipped('process-per-call', 'ms p50', moonpool, `${NATIVE_LUA} is not installed: no baseline`);
    }
    const [moonpool, spawned] = await timeInterleaved(
      10,
      30,
      3000,
      () => host.call('noop', {}),
      () => runNativeLua("io.write('ok')"),
    );
    return compare(
      'process-per-call',
      'ms p50',
      median(moonpool),
      { name: `${NATIVE_LUA} spawned per call`, value: median(spawned) },
      { max: 1 / 15 },
    );
  });
}
