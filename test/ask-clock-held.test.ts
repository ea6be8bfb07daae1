// A call's time limit stands still only while the call waits for its question's answer: a
// question asked where the tool cannot wait (a table.sort comparator, a string.gsub callback) is
// refused at the line before it goes out, so a tool that catches that error runs on under its
// time limit; and the natives behind ctx:ask are out of a tool's reach, so none is sent unwaited.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startHost } from './helpers.js';

const NEVER = (): Promise<never> => new Promise<never>(() => undefined);

test('a question from a table.sort comparator is refused before it is asked; the time limit holds', async () => {
  const host = await startHost('ask-hostile');
  let asked = 0;
  const result = await host.call('ask_in_sort', {}, { onAsk: () => (asked++, NEVER()) });
  assert.equal(result.status, 'timeout', result.content);
  assert.equal(asked, 0);
  assert.equal(result.questions, undefined);
});

test('a question from a string.gsub callback is a Lua error at its line, and no one is asked', async () => {
  const host = await startHost('ask-hostile');
  let asked = 0;
  const result = await host.call('ask_in_gsub', {}, { onAsk: () => (asked++, { answer: true }) });
  assert.equal(result.status, 'error', result.content);
  assert.match(result.content, /init\.lua:\d+: ctx:ask: cannot wait for the answer inside a C function/);
  assert.equal(asked, 0);
});

// The natives behind ctx:ask send the question when called: a tool that reached them through
// debug.getupvalue could ask without waiting and spin with its clock paused. They are out of reach.
test("the natives behind ctx:ask are out of a tool's reach through debug's upvalue functions", async () => {
  const host = await startHost('ask-hostile');
  const result = await host.call('ask_unawaited', { spin: true }, { onAsk: NEVER });
  assert.equal(result.content, 'no natives found');
});
