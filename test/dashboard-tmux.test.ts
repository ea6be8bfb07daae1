// The dashboard in a real terminal (tmux), at 80×24 and 160×48: it starts on the demo config,
// shows a long tool's progress advancing, expands with Ctrl-O, cancels with Esc, reloads, and
// quits with Ctrl-C leaving the terminal restored.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { displayPath } from '../ui/diagnostic-format.js';
import { CLI, eventually, tempDir } from './helpers.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

for (const [width, height] of [
  [80, 24],
  [160, 48],
] as const) {
  describe(
    `dashboard at ${width}×${height}`,
    { skip: HAS_TMUX ? false : 'tmux is not installed (.ci/run installs it)' },
    () => {
      test('progress advances, Ctrl-O expands, Esc cancels, /reload reloads, Ctrl-C quits and restores the terminal', async () => {
        const session = `moonpool-test-${process.pid}-${width}`;
        const dir = tempDir();
        const command = `XDG_CONFIG_HOME=${dir} MOONPOOL_CONFIG= ${process.execPath} ${CLI} --state-dir ${join(dir, 'state')} --cwd ${dir}; echo "EXITED $?"; sleep 60`;
        tmux('new-session', '-d', '-s', session, '-x', String(width), '-y', String(height), command);
        const screen = (): string => tmux('capture-pane', '-t', session, '-p');
        const keys = (...typed: string[]): void => void tmux('send-keys', '-t', session, ...typed);
        try {
          assert.ok(await eventually(() => screen().includes('Type a tool name'), 10_000), screen());

          keys('primes {"limit":50000000}', 'Enter');
          const found = (): number => Number(/([\d,]+) primes found/.exec(screen())?.[1]?.replaceAll(',', '') ?? 0);
          assert.ok(await eventually(() => found() > 0, 10_000), screen());
          const first = found();
          assert.ok(await eventually(() => found() > first, 10_000), `progress stayed at ${first}`);
          assert.match(screen(), /primes +below 50,000,000/);

          keys('C-o');
          assert.ok(await eventually(() => screen().includes('| expanded |'), 5000), screen());
          keys('C-o');
          assert.ok(await eventually(() => !screen().includes('| expanded |'), 5000), screen());

          keys('Escape');
          assert.ok(await eventually(() => /primes +below 50,000,000 +cancelled/.test(screen()), 5000), screen());

          keys('/reload', 'Enter');
          assert.ok(await eventually(() => screen().includes('reloaded: generation 2'), 10_000), screen());

          keys('misbehave {"mode":"sleep"}', 'Enter');
          assert.ok(await eventually(() => screen().includes('1 running'), 5000), screen());
          keys('C-c');
          assert.ok(await eventually(() => screen().includes('EXITED 0'), 10_000), screen());
          assert.doesNotMatch(screen(), /gen \d+ \|/, 'the dashboard is still on the screen');
        } finally {
          spawnSync('tmux', ['kill-session', '-t', session]);
        }
      });
    },
  );
}

describe(
  'reading the dashboard at 80×24',
  { skip: HAS_TMUX ? false : 'tmux is not installed (.ci/run installs it)' },
  () => {
    test('the demo notice, Tab templates, wrapped errors, /tools arguments, the scroll mark, the session and how to resume', async () => {
      const session = `moonpool-test-${process.pid}-reading`;
      const dir = tempDir();
      const command = `XDG_CONFIG_HOME=${dir} MOONPOOL_CONFIG= ${process.execPath} ${CLI} --state-dir ${join(dir, 'state')} --cwd ${dir}; echo "EXITED $?"; sleep 60`;
      tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '24', command);
      const screen = (): string => tmux('capture-pane', '-t', session, '-p');
      const flat = (): string => screen().replace(/\n {2,}/g, ' ');
      const keys = (...typed: string[]): void => void tmux('send-keys', '-t', session, ...typed);
      try {
        assert.ok(await eventually(() => screen().includes('Type a tool name'), 10_000), screen());
        // A long temporary path wraps anywhere, even inside a word: compared without the white space.
        const squeezed = (text: string): string => text.replace(/\s+/g, '');
        assert.ok(
          squeezed(screen()).includes(
            squeezed(
              `no config found (--config, $MOONPOOL_CONFIG, ${join(dir, 'moonpool', 'init.lua')}); using the bundled demo`,
            ),
          ),
          screen(),
        );
        // `config PATH` names the demo once; the notice does not repeat it.
        assert.equal(squeezed(screen()).split('examples/demo/init.lua').length - 1, 1, screen());
        const sessionId = /session (\d{8}-\d{6}-[0-9a-f]+)/.exec(screen())?.[1];
        assert.ok(sessionId, `no session id in the status bar:\n${screen()}`);

        keys('misbehave', 'Tab');
        assert.ok(await eventually(() => screen().includes('> misbehave {"mode": "loop"}'), 5000), screen());
        keys('C-e', 'C-u');

        const words = Array.from({ length: 12 }, (_, i) => `word${i}-${'x'.repeat(6)}`).join(' ');
        keys(`sh {"command":"echo ${words}; exit 3"}`, 'Enter');
        assert.ok(await eventually(() => screen().includes('(exit code 3)'), 10_000), screen());
        assert.ok(flat().includes(words), `the whole output is not readable:\n${screen()}`);

        keys('/tools', 'Enter');
        assert.ok(
          await eventually(
            () => /limit +integer, at least 2, at most 100000000 +Count primes below/.test(screen()),
            5000,
          ),
          screen(),
        );
        assert.match(flat(), /mode +one of "loop", "sleep", "error", "oom", required/);

        keys('PageUp');
        assert.ok(await eventually(() => /↑ scrolled \d+ lines \(PgDn\)/.test(screen()), 5000), screen());
        keys('PageDown');
        assert.ok(await eventually(() => !screen().includes('↑ scrolled'), 5000), screen());

        keys('/quit', 'Enter');
        assert.ok(await eventually(() => screen().includes('EXITED 0'), 10_000), screen());
        // The command as it was run: `moonpool` is not on PATH in a clone.
        const joined = tmux('capture-pane', '-t', session, '-p', '-J');
        assert.ok(
          joined.includes(
            `resume with: node ${displayPath(CLI)} --session ${sessionId} --state-dir ${join(dir, 'state')}`,
          ),
          joined,
        );
      } finally {
        spawnSync('tmux', ['kill-session', '-t', session]);
      }
    });
  },
);
