// A call's time limit stands still only while the call waits for its question's answer: a
// question asked where the tool cannot wait (a table.sort comparator, a string.gsub callback) is
// refused at the line before it goes out, so a tool that catches that error runs on under its
// time limit; a question still open when its call ends is withdrawn with it.
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

test('a question still open when its call ends is withdrawn: its signal aborts', async () => {
  const host = await startHost('ask-hostile');
  let questionSignal: AbortSignal | undefined;
  const result = await host.call(
    'ask_unawaited',
    {},
    {
      onAsk: (_question, signal) => {
        questionSignal = signal;
        return NEVER();
      },
    },
  );
  assert.equal(result.content, 'ran on while the question was open');
  assert.equal(questionSignal?.aborted, true);
});

// Fails: the natives are reachable through debug.getupvalue, and the worker sends the question
// when native.ask is called, not when the tool waits for it (workers/ask-natives.ts); the pool
// then pauses the clock of a tool that runs on.
test('a question sent through the natives without waiting for it does not stop the clock', async () => {
  const host = await startHost('ask-hostile');
  const result = await host.call('ask_unawaited', { spin: true }, { onAsk: NEVER });
  assert.equal(result.status, 'timeout', result.content);
});
