// ctx:ask in `moonpool call`: without a terminal, or with --yes, a question takes its default (or
// gets none); on a terminal (tmux) it is asked on stderr and answered by number, by the choice's
// text or with Enter for the default, and a reply that answers nothing is asked again.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { AskQuestion } from '../core/index.js';
import { answerOf } from '../ui/question-prompt.js';
import { CLI, eventually, FIXTURES, tempDir } from './helpers.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const CONFIG = join(FIXTURES, 'ask', 'init.lua');

function call(tool: string, ...options: string[]): { code: number | null; stdout: string; stderr: string } {
  const stateDir = tempDir();
  const run = spawnSync(
    process.execPath,
    [CLI, 'call', tool, ...options, '--config', CONFIG, '--state-dir', stateDir],
    {
      encoding: 'utf8',
      cwd: stateDir,
      env: { ...process.env, MOONPOOL_CONFIG: '' },
      timeout: 30_000,
    },
  );
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('moonpool call without a terminal', () => {
  test('a question takes its declared default', () => {
    const run = call('pick');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'answer: green\n');
    assert.equal(call('delete', '{"default":false}').stdout, 'answer: false\n');
  });

  test('a question without a default gets none: nil, unavailable', () => {
    assert.equal(call('pick_no_default').stdout, 'no answer: unavailable\n');
    assert.equal(call('delete').stdout, 'no answer: unavailable\n');
  });

  test('--yes answers with the default too', () => {
    assert.equal(call('pick', '--yes').stdout, 'answer: green\n');
    assert.equal(call('pick_no_default', '--yes').stdout, 'no answer: unavailable\n');
  });
});

describe('a typed reply', () => {
  test('picks a choice by its text, by the text shown for it, or by its number', () => {
    const question: AskQuestion = { kind: 'choice', question: 'Which?', choices: ['a\u001b[31mred', '1', 'blue'] };
    assert.deepEqual(answerOf(question, '1'), { answer: '1' });
    assert.deepEqual(answerOf(question, 'ared'), { answer: 'a\u001b[31mred' });
    assert.deepEqual(answerOf(question, '3'), { answer: 'blue' });
    assert.equal(answerOf(question, 'green'), undefined);
  });
});

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

describe(
  'moonpool call on a terminal',
  { skip: HAS_TMUX ? false : 'tmux is not installed (.ci/run installs it)' },
  () => {
    test('asks on the terminal: the text, Enter for the default, a number, y; a bad reply is asked again, Ctrl-D declines', async () => {
      const session = `moonpool-test-${process.pid}-ask`;
      const dir = tempDir();
      const run = (tool: string, args = '{}'): string =>
        `MOONPOOL_CONFIG= ${process.execPath} ${CLI} call ${tool} '${args}' --config ${CONFIG} --state-dir ${join(dir, 'state')}; echo "EXITED $?"`;
      const command = [
        run('pick'),
        run('pick'),
        run('delete', '{"default":false}'),
        run('pick_no_default'),
        run('pick_no_default'),
        run('pick', '--yes'),
        'sleep 60',
      ].join('; ');
      tmux('new-session', '-d', '-s', session, '-x', '100', '-y', '50', command);
      const screen = (): string => tmux('capture-pane', '-t', session, '-p');
      const keys = (...typed: string[]): void => void tmux('send-keys', '-t', session, ...typed);
      const exits = (): number => screen().match(/EXITED \d+/g)?.length ?? 0;
      try {
        assert.ok(await eventually(() => screen().includes('3) blue'), 10_000), screen());
        assert.match(screen(), /\? Which colour\?\n {2}1\) red\n {2}2\) green \(default\)\n {2}3\) blue/);
        assert.match(screen(), /\[1-3 or a choice, Enter: green\]/);
        keys('7', 'Enter');
        assert.ok(await eventually(() => screen().includes('not an answer'), 5000), screen());
        keys('blue', 'Enter');
        assert.ok(await eventually(() => screen().includes('answer: blue'), 10_000), screen());

        assert.ok(
          await eventually(() => exits() === 1 && (screen().match(/3\) blue/g)?.length ?? 0) === 2, 10_000),
          screen(),
        );
        keys('Enter');
        assert.ok(await eventually(() => screen().includes('answer: green'), 10_000), screen());

        assert.ok(await eventually(() => /\? Delete 3 files\?\n\[y\/N\]/.test(screen()), 10_000), screen());
        keys('y', 'Enter');
        assert.ok(await eventually(() => screen().includes('answer: true'), 10_000), screen());

        // No default: Enter answers nothing, a number answers; Ctrl-D declines.
        assert.ok(await eventually(() => exits() === 3 && screen().includes('[1-2 or a choice]'), 10_000), screen());
        keys('Enter');
        assert.ok(await eventually(() => screen().includes('not an answer: [1-2 or a choice]'), 5000), screen());
        keys('2', 'Enter');
        assert.ok(await eventually(() => exits() === 4, 10_000), screen());
        assert.match(screen(), /answer: green\nEXITED 0\n/);
        assert.ok(await eventually(() => screen().match(/\[1-2 or a choice\]/g)?.length === 4, 10_000), screen());
        keys('C-d');
        assert.ok(await eventually(() => screen().includes('no answer: declined'), 10_000), screen());

        assert.ok(await eventually(() => exits() === 6, 10_000), screen());
        assert.match(screen(), /answer: green\nEXITED 0\s*$/);
      } finally {
        spawnSync('tmux', ['kill-session', '-t', session]);
      }
    });
  },
);

describe('moonpool replay', () => {
  test("shows what each call asked and the answers, from the session's log", () => {
    const stateDir = tempDir();
    const common = ['--config', CONFIG, '--state-dir', stateDir, '--session', 'asked'];
    const options = { encoding: 'utf8' as const, cwd: stateDir, env: { ...process.env, MOONPOOL_CONFIG: '' } };
    for (const tool of ['pick', 'pick_no_default', 'delete'])
      spawnSync(
        process.execPath,
        [CLI, 'call', tool, ...(tool === 'delete' ? ['{"default":true}'] : []), ...common],
        options,
      );
    const replay = spawnSync(process.execPath, [CLI, 'replay', 'asked', ...common], options);
    assert.equal(replay.status, 0, replay.stderr);
    assert.match(replay.stdout, /answer: green\n {2}\? Which colour\? → green\n/);
    assert.match(replay.stdout, /\? Which colour\? → no answer: unavailable\n/);
    assert.match(replay.stdout, /\? Delete 3 files\? → yes\n/);
  });
});
