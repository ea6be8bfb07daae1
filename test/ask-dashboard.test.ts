// ctx:ask in the dashboard: the question shows in the tool's block and takes the input line — a
// number or a choice typed and Enter picks it, Enter alone takes the default, y and Enter answers a
// confirm, Esc declines; a key alone answers nothing (a command being typed must not answer) — on
// a virtual terminal, then in a real one (tmux).
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, eventually, FIXTURES, startHost, tempDir } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

describe('a question in the dashboard (virtual terminal)', () => {
  test('a number, a typed choice, Enter for the default, y, and Esc each answer; a key alone does not', async () => {
    const host = await startHost('ask');
    const { dashboard, terminal, lines, screen, input } = virtualDashboard(host, 100, 40);
    const asked = (): number => lines().filter((line) => line.includes('Which colour?')).length;
    try {
      terminal.type('pick {}\r');
      assert.ok(await eventually(() => asked() === 1), screen());
      assert.match(screen(), /2\) green \(default\)/);
      assert.match(screen(), /\[1-3 or a choice, Enter: green\] below, then Enter · Esc declines/);
      terminal.type('3');
      assert.ok(await eventually(() => input() === '3'));
      assert.equal(asked(), 1, 'a key alone answers nothing');
      terminal.type('\r');
      assert.ok(await eventually(() => screen().includes('answer: blue')), screen());
      assert.equal(asked(), 0, 'the question is gone once answered');

      terminal.type('pick {}\r');
      assert.ok(await eventually(() => asked() === 1), screen());
      terminal.type('red');
      assert.ok(await eventually(() => input() === 'red'));
      terminal.type('\r');
      assert.ok(await eventually(() => screen().includes('answer: red')), screen());

      terminal.type('pick {}\r');
      assert.ok(await eventually(() => asked() === 1), screen());
      terminal.type('\r');
      assert.ok(await eventually(() => screen().includes('answer: green')), screen());

      terminal.type('delete {}\r');
      assert.ok(await eventually(() => screen().includes('Delete 3 files?')), screen());
      terminal.type('y\r');
      assert.ok(await eventually(() => screen().includes('answer: true')), screen());

      terminal.type('pick_no_default {}\r');
      assert.ok(await eventually(() => asked() === 1), screen());
      terminal.type('\r');
      assert.ok(await eventually(() => screen().includes('not an answer: [1-2 or a choice]')), screen());
      terminal.type('\x1b');
      assert.ok(await eventually(() => screen().includes('no answer: declined')), screen());
    } finally {
      await dashboard.quit();
    }
  });
});

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

describe(
  'a question in the dashboard (tmux)',
  { skip: HAS_TMUX ? false : 'tmux is not installed (.ci/run installs it)' },
  () => {
    test('the block shows the question; a number and Enter answer it', async () => {
      const session = `moonpool-test-${process.pid}-dash-ask`;
      const dir = tempDir();
      const config = join(FIXTURES, 'ask', 'init.lua');
      const command = `MOONPOOL_CONFIG= ${process.execPath} ${CLI} --config ${config} --state-dir ${join(dir, 'state')} --cwd ${dir}; echo "EXITED $?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '24', command);
      const screen = (): string => tmux('capture-pane', '-t', session, '-p');
      const keys = (...typed: string[]): void => void tmux('send-keys', '-t', session, ...typed);
      try {
        assert.ok(await eventually(() => screen().includes('Type a tool name')), screen());
        keys('pick {}', 'Enter');
        assert.ok(await eventually(() => screen().includes('3) blue')), screen());
        assert.match(screen(), /\? Which colour\?/);
        assert.match(screen(), /^\?\s*$/m, 'the input line asks');
        keys('1', 'Enter');
        assert.ok(await eventually(() => screen().includes('answer: red')), screen());
        assert.doesNotMatch(screen(), /3\) blue/);
        keys('C-c');
        assert.ok(await eventually(() => screen().includes('EXITED 0')), screen());
      } finally {
        spawnSync('tmux', ['kill-session', '-t', session]);
      }
    });
  },
);
