// ctx:ask through the library: the caller's onAsk answers, a host without one cannot ask, the
// call's time limit stands still while the question waits (and only then), cancelling a call
// that waits ends it, a bad question is a Lua error at the tool's line, and every question and
// answer is in the call's result and its session record (one the call's end left waiting too).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AskExchange, AskQuestion } from '../core/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, FIXTURES, startHost } from './helpers.js';

const SLEEP = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('onAsk gets the question and its answer is what ctx:ask returns', async () => {
  const host = await startHost('ask');
  const asked: AskQuestion[] = [];
  const logs: string[] = [];
  const result = await host.call(
    'pick',
    {},
    {
      onLog: (text) => logs.push(text),
      onAsk: (question) => {
        asked.push(question);
        // What the tool printed before the question reached the caller before it.
        assert.deepEqual(logs, ['before the question']);
        return { answer: 'blue' };
      },
    },
  );
  assert.equal(result.content, 'answer: blue');
  assert.deepEqual(asked, [
    { kind: 'choice', question: 'Which colour?', choices: ['red', 'green', 'blue'], default: 'green' },
  ]);
  assert.equal(result.questions?.length, 1);
  assert.equal(result.questions[0]?.answer, 'blue');
});

test('a confirm answers true or false; its default crosses as a boolean', async () => {
  const host = await startHost('ask');
  let seen: AskQuestion | undefined;
  const yes = await host.call(
    'delete',
    { default: false },
    { onAsk: (question) => ((seen = question), { answer: true }) },
  );
  assert.equal(yes.content, 'answer: true');
  assert.deepEqual(seen, { kind: 'confirm', question: 'Delete 3 files?', default: false });
  const no = await host.call('delete', {}, { onAsk: () => ({ answer: false }) });
  assert.equal(no.content, 'answer: false');
});

test('without onAsk, or with one that throws or answers off the question, the tool hears nil, unavailable', async () => {
  const host = await startHost('ask');
  assert.equal((await host.call('pick', {})).content, 'no answer: unavailable');
  const throwing = await host.call(
    'pick',
    {},
    {
      onAsk: () => {
        throw new Error('no terminal');
      },
    },
  );
  assert.equal(throwing.content, 'no answer: unavailable');
  const offChoice = await host.call('pick', {}, { onAsk: () => ({ answer: 'purple' }) });
  assert.equal(offChoice.content, 'no answer: unavailable');
  const stringToConfirm = await host.call('delete', {}, { onAsk: () => ({ answer: 'yes' }) });
  assert.equal(stringToConfirm.content, 'no answer: unavailable');
  const declined = await host.call('pick', {}, { onAsk: () => ({ refused: 'declined' }) });
  assert.equal(declined.content, 'no answer: declined');
  assert.equal(declined.questions?.[0]?.refused, 'declined');
});

test('a question in available() is answered nil, unavailable: no one is asked there', async () => {
  const host = await startHost('ask');
  assert.equal((await host.call('asks_in_available', {}, { onAsk: () => ({ answer: true }) })).content, 'offered');
});

test("the call's time limit stands still while its question waits, and runs again after", async () => {
  const host = await startHost('ask');
  // One second of time limit, two waiting for the answer.
  const answered = await host.call('patient', {}, { onAsk: async () => (await SLEEP(2000), { answer: true }) });
  assert.equal(answered.status, 'ok', answered.content);
  assert.equal(answered.content, 'answer: true');
  assert.ok((answered.questions?.[0]?.waitedMs ?? 0) >= 2000);
  const spun = await host.call('patient', { spin: true }, { onAsk: async () => (await SLEEP(1500), { answer: true }) });
  assert.equal(spun.status, 'timeout', spun.content);
});

test('cancelling a call while its question waits ends it and aborts the question', async () => {
  const host = await startHost('ask');
  const controller = new AbortController();
  let questionSignal: AbortSignal | undefined;
  const result = await host.call(
    'pick',
    {},
    {
      signal: controller.signal,
      onAsk: (_question, signal) => {
        questionSignal = signal;
        controller.abort();
        return new Promise(() => undefined);
      },
    },
  );
  assert.equal(result.status, 'cancelled', result.content);
  assert.equal(questionSignal?.aborted, true);
  assert.equal((await host.call('pick', {}, { onAsk: () => ({ answer: 'red' }) })).content, 'answer: red');
  // The question was asked, never answered: in the result and the record, with neither answer nor refusal.
  const unanswered = (exchanges: AskExchange[] | undefined): unknown =>
    exchanges?.map(({ question, answer, refused, waitedMs }) => ({
      text: question.question,
      answer,
      refused,
      waitedMs,
    }));
  const expected = [
    { text: 'Which colour?', answer: undefined, refused: undefined, waitedMs: result.questions?.[0]?.waitedMs },
  ];
  assert.deepEqual(unanswered(result.questions), expected);
  assert.equal(typeof result.questions?.[0]?.waitedMs, 'number');
  await host.close();
  assert.deepEqual(unanswered(host.resume().records[0]?.questions), expected);
});

test("a call whose worker crashes while its question waits aborts the question's signal", async () => {
  const host = await startHost('ask');
  let questionSignal: AbortSignal | undefined;
  let asked: () => void = () => undefined;
  const waiting = new Promise<void>((resolve) => (asked = resolve));
  const call = host.call(
    'pick',
    {},
    {
      onAsk: (_question, signal) => {
        questionSignal = signal;
        asked();
        return new Promise(() => undefined);
      },
    },
  );
  await waiting;
  const [module] = Object.keys(host.stats().modules);
  await host.moduleThreads(module!)[0]!.terminate();
  const result = await call;
  assert.equal(result.status, 'crashed', result.content);
  assert.ok(await eventually(() => questionSignal?.aborted === true), 'the question was never told the call ended');
  assert.deepEqual(
    result.questions?.map(({ question, answer, refused }) => ({ text: question.question, answer, refused })),
    [{ text: 'Which colour?', answer: undefined, refused: undefined }],
  );
});

test('two questions in a row are asked in order and recorded in the session log', async () => {
  const host = await startHost('ask');
  const answers = [{ answer: 'b' }, { refused: 'declined' as const }];
  const result = await host.call('twice', {}, { onAsk: () => answers.shift()! });
  assert.equal(result.content, 'answer: b, no answer: declined');
  await host.close();
  const [record] = host.resume().records;
  assert.deepEqual(
    record?.questions?.map(({ question, answer, refused }) => ({ text: question.question, answer, refused })),
    [
      { text: 'First?', answer: 'b', refused: undefined },
      { text: 'Second?', answer: undefined, refused: 'declined' },
    ],
  );
});

test('a question of a bad shape is a Lua error at the line of the ctx:ask', async () => {
  const host = await startHost('ask');
  const source = readFileSync(join(FIXTURES, 'ask', 'init.lua'), 'utf8').split('\n');
  /** The fixture's line that holds `text`. */
  const line = (text: string): number => source.findIndex((row) => row.includes(text)) + 1;
  const at = (text: string, message: string): RegExp => new RegExp(`init\\.lua:${line(text)}: ${message}`);
  const expected: Record<string, RegExp> = {
    none: at('none = ', 'ctx:ask expects \\{ question = .*, got nil'),
    dot: at('dot = ', 'ctx:ask must be called with a colon'),
    empty_question: at('empty_question = ', 'ctx:ask: question must be a non-empty string, got an empty one'),
    no_choices: /init\.lua:\d+: ctx:ask expects .*: it has neither choices nor confirm = true/,
    both: /init\.lua:\d+: ctx:ask: give either choices or confirm = true, not both/,
    bad_default: /init\.lua:\d+: ctx:ask: default must be one of the choices, got "c"/,
    repeated: /init\.lua:\d+: ctx:ask: choices\[2\] repeats "a"/,
    unknown: /init\.lua:\d+: ctx:ask: unknown field colour/,
    coroutine: at('coroutine.wrap', 'ctx:ask: cannot wait for the answer inside a coroutine of your own'),
  };
  for (const [shape, pattern] of Object.entries(expected)) {
    const result = await host.call('bad_ask', { shape }, { onAsk: () => ({ answer: true }) });
    assert.equal(result.status, 'error', shape);
    assert.match(result.content, pattern, shape);
  }
});
