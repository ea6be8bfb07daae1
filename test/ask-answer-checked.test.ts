// What a tool's ctx:ask returns is only ever one of the answers it offered: a library caller's
// onAsk that returns an answer and a refusal at once, a value of another kind, an answer
// through a getter that changes, or one it added to the question it was handed, gives the tool
// nil, 'unavailable'; and choices that are not UTF-8 text, which would come back from the host
// as other strings, are refused at the line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AskAnswer } from '../core/index.js';
import { startHost } from './helpers.js';

test('an answer beside a refusal, or of another kind, never reaches the tool', async () => {
  const host = await startHost('ask-hostile');
  const replies: Array<[string, unknown]> = [
    ['pick', { refused: 'declined', answer: 'purple' }],
    ['pick', { answer: 'red', refused: 'declined' }],
    ['pick', { refused: 'declined', answer: { colour: 'red' } }],
    ['pick', { answer: ['red'] }],
    ['confirm', { refused: 'unavailable', answer: 'rm -rf /' }],
    ['confirm', { answer: 1 }],
  ];
  for (const [tool, reply] of replies) {
    const result = await host.call(tool, {}, { onAsk: () => reply as AskAnswer });
    assert.equal(result.content, 'no answer: unavailable', JSON.stringify(reply));
    assert.deepEqual(
      result.questions?.map(({ answer, refused }) => ({ answer, refused })),
      [{ answer: undefined, refused: 'unavailable' }],
      JSON.stringify(reply),
    );
  }
});

test('an answer read through a getter is read once: the tool gets what was checked', async () => {
  const host = await startHost('ask-hostile');
  let reads = 0;
  const reply = {
    get answer(): string {
      reads++;
      return reads === 1 ? 'red' : 'purple';
    },
  };
  const result = await host.call('pick', {}, { onAsk: () => reply });
  assert.equal(result.content, 'answer: string red');
  assert.equal(result.questions?.[0]?.answer, 'red');
});

test('a handler that edits the question it is handed cannot answer off the choices the tool offered', async () => {
  const host = await startHost('ask-hostile');
  const result = await host.call(
    'pick',
    {},
    {
      onAsk: (question) => {
        if (question.kind === 'choice') question.choices.push('rm -rf /');
        question.question = 'Anything?';
        return { answer: 'rm -rf /' };
      },
    },
  );
  assert.equal(result.content, 'no answer: unavailable');
  assert.deepEqual(result.questions?.[0]?.question, {
    kind: 'choice',
    question: 'Which colour?',
    choices: ['red', 'green', 'blue'],
  });
});

test('choices that are not UTF-8 text are a Lua error at the line, and no one is asked', async () => {
  const host = await startHost('ask-hostile');
  let asked = 0;
  const result = await host.call('bytes_choices', {}, { onAsk: () => (asked++, { answer: 'a\ufffd' }) });
  assert.equal(result.status, 'error', result.content);
  assert.match(result.content, /init\.lua:\d+: ctx:ask: choices\[1\] is not valid UTF-8 text/);
  assert.equal(asked, 0);
});
