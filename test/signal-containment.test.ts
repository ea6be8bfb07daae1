// A host stopped by a signal ends the processes of its calls in flight, as `moonpool call` does:
// security.md says every process a call starts ends with the call, whatever its status, and that
// the dashboard and `moonpool mcp` exit when asked. Here the dashboard (in tmux) gets SIGTERM,
// SIGHUP or its terminal closed, and `moonpool mcp` gets SIGHUP, during a call holding a command.
// The hosts run with MOONPOOL_CGROUP=off (the /proc sweep, with which `moonpool call` cleans up on
// every signal): with cgroups, any later moonpool host on the machine kills a dead host's cgroup
// when it starts a command, which would hide what the stopped host itself left.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, eventually, liveProcesses, tempDir, uniqueSeconds } from './helpers.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

const CONFIG = `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'hold',
    description = 'Sleeps in a command for the given seconds.',
    parameters = { type = 'object', properties = { seconds = { type = 'string' } }, required = { 'seconds' } },
    run = function(args) capture('sleep ' .. args.seconds) return 'woke' end,
  }
end)
`;

const sleeps = (seconds: string): string[] => liveProcesses(`sleep ${seconds}`);

/** Kills the `sleep SECONDS` processes a failed test left, by pid. */
function cleanUp(seconds: string): void {
  for (const line of spawnSync('pgrep', ['-f', `sleep ${seconds}`], { encoding: 'utf8' }).stdout.split('\n')) {
    if (line.trim() !== '') process.kill(Number(line), 'SIGKILL');
  }
}

function configDir(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'init.lua'), CONFIG);
  return dir;
}

/** Whether the process `pid` is gone. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

describe(
  'the dashboard stopped from outside during a call',
  { skip: HAS_TMUX ? false : 'tmux is not installed' },
  () => {
    for (const stop of ['SIGTERM', 'SIGHUP', 'its terminal closed'] as const) {
      test(`with ${stop}, leaves nothing of the call behind`, async () => {
        const seconds = uniqueSeconds();
        const session = `moonpool-signal-${process.pid}-${stop.replace(/\W/g, '')}`;
        const dir = configDir();
        const command = `exec env MOONPOOL_CGROUP=off ${process.execPath} ${CLI} --config ${dir} --state-dir ${join(dir, 'state')}`;
        try {
          execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '100', '-y', '30', command]);
          const pid = Number(
            execFileSync('tmux', ['display', '-p', '-t', session, '#{pane_pid}'], { encoding: 'utf8' }),
          );
          const screen = (): string =>
            execFileSync('tmux', ['capture-pane', '-t', session, '-p'], { encoding: 'utf8' });
          assert.ok(await eventually(() => screen().includes('1 tools: hold'), 30_000), screen());
          execFileSync('tmux', ['send-keys', '-t', session, `hold {"seconds":"${seconds}"}`, 'Enter']);
          assert.ok(await eventually(() => sleeps(seconds).length > 0, 30_000), 'the command started');
          if (stop === 'its terminal closed') execFileSync('tmux', ['kill-session', '-t', session]);
          else process.kill(pid, stop);
          assert.ok(await eventually(() => gone(pid)), 'the dashboard exited');
          assert.ok(await eventually(() => sleeps(seconds).length === 0), `left: ${sleeps(seconds).join('\n')}`);
        } finally {
          spawnSync('tmux', ['kill-session', '-t', session]);
          cleanUp(seconds);
        }
      });
    }
  },
);

test('`moonpool mcp` stopped with SIGHUP during a call leaves nothing of the call behind', async () => {
  const seconds = uniqueSeconds();
  const dir = configDir();
  try {
    const child = spawn(process.execPath, [CLI, 'mcp', '--config', dir, '--state-dir', join(dir, 'state')], {
      stdio: ['pipe', 'ignore', 'ignore'],
      env: { ...process.env, MOONPOOL_CGROUP: 'off' },
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const requests = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'hold', arguments: { seconds } } },
    ];
    child.stdin.write(requests.map((request) => JSON.stringify(request) + '\n').join(''));
    assert.ok(await eventually(() => sleeps(seconds).length > 0, 30_000), 'the command started');
    child.kill('SIGHUP');
    await exited;
    assert.ok(await eventually(() => sleeps(seconds).length === 0), `left: ${sleeps(seconds).join('\n')}`);
  } finally {
    cleanUp(seconds);
  }
});
