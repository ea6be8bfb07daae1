// When a worker waits awake for its next task (workers/awake-rule.cts): a run of calls close
// enough that waiting catches the next keeps it awake between them; calls a little further apart
// (each wait would end before the next call) must not keep it burning a CPU for nothing. Played
// on a simulated clock: no timing in the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import AwakeRule from '../workers/awake-rule.cjs';

/**
 * Calls arriving `gapsMs` apart in turn, each taking `taskMs`, served as lua-worker-entry.cts
 * serves them (a wait awake catches a call that comes before it ends); how the worker's waits went.
 */
function play(gapsMs: number[], taskMs: number, calls = 1000): { caught: number; awakeInVainMs: number } {
  const rule = new AwakeRule();
  let caught = 0;
  let awakeInVainMs = 0;
  let asleep = true;
  let arrives = 0;
  for (let i = 0; i < calls; i++) {
    if (asleep) rule.woken(arrives);
    else caught++;
    const ranOut = arrives + taskMs;
    const awakeMs = rule.ranOut(ranOut);
    arrives += gapsMs[i % gapsMs.length]!;
    asleep = arrives - ranOut > awakeMs;
    if (asleep) awakeInVainMs += awakeMs;
  }
  return { caught, awakeInVainMs };
}

/** `times` the length of one wait awake, in ms. */
const waits = (times: number): number => times * AwakeRule.waitMs;

test('calls coming back to back are caught by the worker waiting awake', () => {
  const { caught } = play([waits(0.6)], 0.1);
  assert.ok(caught >= 990, `caught ${caught} of 1000`);
});

test('a late call now and then does not stop the worker waiting awake for the back-to-back ones', () => {
  const { caught } = play([...Array<number>(9).fill(waits(0.6)), waits(2.4)], 0.1);
  assert.ok(caught >= 890, `caught ${caught} of 1000`);
});

test('calls a little too far apart for the wait to catch them do not keep the worker awake for nothing', () => {
  for (const everyMs of [1.4, 1.8, 2.4, 2.8].map(waits)) {
    const { caught, awakeInVainMs } = play([everyMs], 0.1);
    assert.equal(caught, 0, `every ${everyMs} ms`);
    assert.ok(awakeInVainMs <= 1, `every ${everyMs} ms: awake ${awakeInVainMs.toFixed(1)} ms in vain over 1000 calls`);
  }
});

test('calls now and then never keep the worker awake', () => {
  assert.deepEqual(play([waits(40)], 0.1), { caught: 0, awakeInVainMs: 0 });
});

test('a worker with no CPU spare sleeps, and waits awake again once one is', () => {
  const rule = new AwakeRule();
  rule.woken(0);
  assert.equal(rule.ranOut(0.1), 0, 'the first task: nothing to go by');
  rule.woken(waits(0.5));
  assert.equal(rule.ranOut(waits(0.5) + 0.1, false), 0, 'back to back, but no CPU spare');
  rule.woken(waits(1));
  assert.equal(rule.ranOut(waits(1) + 0.1), AwakeRule.waitMs, 'back to back, a CPU spare');
});
