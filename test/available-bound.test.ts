// `available()` checks run concurrently under one overall bound: ten checks that never answer
// no longer add their timeouts one after another to the host's start, the checks that answer at
// once still count, and every slow tool is unavailable with a reason that says which bound it met.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, FIXTURES, liveProcesses, startHost, uniqueSeconds } from './helpers.js';

const AVAILABLE_TIMEOUT_MS = 2_000;
const SLOW_CHECKS = 10;

test(
  'ten available() checks that never answer delay the start by one bound, not ten timeouts',
  { timeout: 60_000 },
  async () => {
    const seconds = uniqueSeconds();
    process.env['SLOW_AVAILABLE_SECONDS'] = seconds;
    const started = performance.now();
    const host = await startHost(join(FIXTURES, 'slow-available'), { availableTimeoutMs: AVAILABLE_TIMEOUT_MS });
    const tookMs = performance.now() - started;
    // One after another they took at least SLOW_CHECKS × the timeout (20 s), which no start of this
    // config can now reach: three rounds of four checks (about 7 s), all within 14 s at most.
    assert.ok(tookMs < SLOW_CHECKS * AVAILABLE_TIMEOUT_MS, `the start took ${Math.round(tookMs)} ms`);
    const byName = new Map(host.allTools().map((tool) => [tool.name, tool]));
    assert.equal(byName.get('ready')!.available, true);
    assert.equal(byName.get('plain')!.available, true);
    assert.equal(byName.get('refused')!.available, false);
    for (let i = 1; i <= SLOW_CHECKS; i++) {
      const tool = byName.get(`slow${i}`)!;
      assert.equal(tool.available, false);
      assert.match(
        tool.unavailableReason,
        /available\(\) (did not answer within 2 s|was not answered within [\d.]+ s, the bound for all of the config's checks)/,
      );
    }
    const [ready, plain] = await Promise.all([host.call('ready', {}), host.call('plain', {})]);
    assert.deepEqual([ready.content, plain.content], ['ready', 'plain']);
    // The checks' `sleep` commands were killed with their workers.
    assert.ok(
      await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
      liveProcesses(`sleep ${seconds}`).join('\n'),
    );
  },
);

test(
  'timeouts with fractions of a millisecond, or past what a timer holds, start the host',
  { timeout: 60_000 },
  async () => {
    for (const options of [
      { loadTimeoutMs: 1100.3, availableTimeoutMs: 2000.25 },
      { loadTimeoutMs: 3e9, availableTimeoutMs: 3e9 },
    ]) {
      const host = await startHost(join(FIXTURES, 'pi'), options);
      // Its one `available` check ran and answered.
      assert.deepEqual(
        host
          .allTools()
          .filter((tool) => !tool.available)
          .map((tool) => tool.name),
        ['withheld'],
      );
    }
  },
);
