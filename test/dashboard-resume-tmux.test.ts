// The dashboard resuming a large session in a real terminal (tmux): it says it is reading the
// session while it reads, a slice at a time, and Ctrl-C quits during the read. The note is no
// running call: the status bar says `0 running`, and Esc (with no call running) stops the read.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { CLI, eventually, FIXTURES } from './helpers.js';
import { oldSession } from './old-session.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
/** Records in the session: 44 MB, which the dashboard read for 12 s with its keys ignored before. */
const RECORDS = 400_000;

function tmux(...args: string[]): string {
  return execFileSync('tmux', args, { encoding: 'utf8' });
}

/** A state dir holding the session `big` of RECORDS records. */
const bigSession = (): string => oldSession(RECORDS).stateDir;

/** Starts the dashboard on the session `big` in a tmux session named after `name`; returns it and its screen. */
function resumeInTmux(name: string): { session: string; screen: () => string } {
  const stateDir = bigSession();
  const session = `moonpool-test-${process.pid}-${name}`;
  const config = join(FIXTURES, 'snapshots', 'init.lua');
  const cli = `${process.execPath} ${CLI} --config ${config} --state-dir ${stateDir}`;
  const command = `${cli} --session big; echo "EXITED $?"; sleep 60`;
  tmux('new-session', '-d', '-s', session, '-x', '80', '-y', '24', command);
  return { session, screen: () => tmux('capture-pane', '-t', session, '-p') };
}

test(
  'a large session resumed shows that it is being read, and Ctrl-C quits while it is',
  { skip: HAS_TMUX ? false : 'tmux is not installed (.ci/run installs it)' },
  async () => {
    const { session, screen } = resumeInTmux('resume');
    try {
      assert.ok(await eventually(() => screen().includes('reading session big'), 10_000), screen());
      tmux('send-keys', '-t', session, 'C-c');
      assert.ok(await eventually(() => screen().includes('EXITED 0'), 5000), screen());
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  },
);

test(
  'while a resumed session is read, the status bar counts no running call and Esc stops the read',
  { skip: HAS_TMUX ? false : 'tmux is not installed (.ci/run installs it)' },
  async () => {
    const { session, screen } = resumeInTmux('resume-esc');
    try {
      assert.ok(await eventually(() => screen().includes('reading session big'), 10_000), screen());
      assert.match(screen(), / 0 running /);
      tmux('send-keys', '-t', session, 'Escape');
      assert.ok(await eventually(() => screen().includes('stopped reading session big'), 10_000), screen());
      assert.doesNotMatch(screen(), /reading session big…/);
      tmux('send-keys', '-t', session, 'C-c');
      assert.ok(await eventually(() => screen().includes('EXITED 0'), 5000), screen());
    } finally {
      spawnSync('tmux', ['kill-session', '-t', session]);
    }
  },
);
