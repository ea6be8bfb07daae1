// The host's event loop kept turning for an awaited answer (core/hot-loop.ts): it turns until the
// answer comes or ANSWER_WAIT_MS pass, whichever is first, with one turn pending at a time however
// many answers are awaited, and a wait that throws does not leave it turning or wedged. Played on
// a made-up clock and loop: no timing in the test.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANSWER_WAIT_MS, HotLoop } from '../core/hot-loop.js';

/** A loop whose turns run when the test says, on a clock the test sets. */
function madeUpLoop(): { loop: HotLoop; clock: { ms: number }; pending: () => number; runTurn: () => void } {
  const clock = { ms: 1000 };
  const turns: (() => void)[] = [];
  const loop = new HotLoop(
    () => clock.ms,
    (turn) => turns.push(turn),
  );
  return { loop, clock, pending: () => turns.length, runTurn: () => turns.shift()!() };
}

test('the loop turns until the awaited answer comes', () => {
  const { loop, clock, pending, runTurn } = madeUpLoop();
  let answered = false;
  loop.keep(() => !answered);
  for (let i = 0; i < 5; i++) {
    clock.ms += ANSWER_WAIT_MS / 10;
    runTurn();
    assert.equal(pending(), 1);
  }
  answered = true;
  runTurn();
  assert.equal(pending(), 0);
  assert.equal(loop.turns, 6);
});

test('the loop stops turning once the answer has been awaited ANSWER_WAIT_MS', () => {
  const { loop, clock, pending, runTurn } = madeUpLoop();
  loop.keep(() => true);
  clock.ms += ANSWER_WAIT_MS * 0.9;
  runTurn();
  assert.equal(pending(), 1);
  clock.ms += ANSWER_WAIT_MS * 0.1;
  runTurn();
  assert.equal(pending(), 0);
});

test('answers awaited together keep one turn pending, until the last of them is over', () => {
  const { loop, clock, pending, runTurn } = madeUpLoop();
  let firstAnswered = false;
  loop.keep(() => !firstAnswered);
  clock.ms += ANSWER_WAIT_MS / 2;
  loop.keep(() => true);
  loop.keep(() => true);
  assert.equal(pending(), 1);
  firstAnswered = true;
  runTurn();
  assert.equal(pending(), 1);
  // The first wait would have ended here; the later two go on.
  clock.ms += ANSWER_WAIT_MS / 2;
  runTurn();
  assert.equal(pending(), 1);
  clock.ms += ANSWER_WAIT_MS / 2;
  runTurn();
  assert.equal(pending(), 0);
  // A new wait after the loop stopped starts it again.
  loop.keep(() => true);
  assert.equal(pending(), 1);
});

test('a wait that throws is thrown on, and leaves the loop neither turning nor wedged', () => {
  const { loop, clock, pending, runTurn } = madeUpLoop();
  loop.keep(() => {
    throw new Error('a broken wait');
  });
  loop.keep(() => true);
  assert.throws(runTurn, /a broken wait/);
  assert.equal(pending(), 0);
  // A later wait turns the loop again, and ends in its time.
  loop.keep(() => true);
  assert.equal(pending(), 1);
  clock.ms += ANSWER_WAIT_MS;
  runTurn();
  assert.equal(pending(), 0);
});
