// Every process a call starts ends when the call ends, however it ends (ok, error, timeout,
// cancellation, crash, host.close(), CLI exit), including processes that left the call's process
// group or session; only what a tool explicitly keeps outlives it.
import assert from 'node:assert/strict';
import { constants } from 'node:os';
import { spawn, spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ToolHost } from '../core/index.js';
import { PROCESS_TAG_VARIABLE, sweepTaskProcesses } from '../shared/process-sweep.js';
import { CLI, eventually, FIXTURES, liveProcesses, startHost, tempDir, uniqueSeconds } from './helpers.js';

const FIXTURE = `${FIXTURES}/process`;
/** Ways a process can try to outlive its call (see the fixture's SHAPES). */
const SHAPES = ['background', 'setsid', 'setpgid', 'daemon', 'cleared_env', 'popen', 'execute'];

const sleeps = (seconds: string): string[] => liveProcesses(`sleep ${seconds}`);

/** Asserts no `sleep SECONDS` is left, waiting a little for killed processes to be reaped. */
async function assertNoneLeft(seconds: string, what: string): Promise<void> {
  assert.ok(await eventually(() => sleeps(seconds).length === 0), `${what}: ${sleeps(seconds).join('\n')}`);
}

/** Kills the `sleep SECONDS` processes a failed test left, by pid, so one failure does not leak. */
function cleanUp(seconds: string): void {
  for (const line of spawnSync('pgrep', ['-f', `sleep ${seconds}`], { encoding: 'utf8' }).stdout.split('\n')) {
    if (line.trim() !== '') process.kill(Number(line), 'SIGKILL');
  }
}

describe('a call that ends by itself', async () => {
  const host = await startHost(FIXTURE);

  for (const ending of ['ok', 'error', 'timeout'] as const) {
    test(`ends every process it started when it ends with ${ending}, whatever shape the process took`, async () => {
      const runs = SHAPES.map((shape) => ({ shape, seconds: uniqueSeconds() }));
      try {
        const [healthy, ...results] = await Promise.all([
          host.call('healthy', {}),
          ...runs.map(({ shape, seconds }) =>
            ending === 'timeout'
              ? host.call('leave_then_spin', { shape, seconds })
              : host.call('leave', { shape, seconds, ending }),
          ),
        ]);
        assert.deepEqual([healthy.status, healthy.content], ['ok', 'fine']);
        for (const [i, result] of results.entries()) {
          assert.equal(result.status, ending, `${runs[i]!.shape}: ${result.content}`);
          if (ending !== 'timeout') assert.match(result.content, /started [1-9]/, runs[i]!.shape);
        }
        for (const { shape, seconds } of runs) await assertNoneLeft(seconds, shape);
        assert.equal((await host.call('healthy', {})).content, 'fine');
      } finally {
        for (const { seconds } of runs) cleanUp(seconds);
      }
    });
  }

  test('a command blocking the call in a new session with an empty environment ends at the timeout (found as a descendant)', async () => {
    const seconds = uniqueSeconds();
    try {
      const result = await host.call('hold', { command: `env -i setsid /bin/sleep ${seconds}` });
      assert.equal(result.status, 'timeout');
      await assertNoneLeft(seconds, 'descendant');
    } finally {
      cleanUp(seconds);
    }
  });

  test('a burst of 200 processes in new sessions, and a loop still starting them when the call times out, leave none behind', async () => {
    const burst = uniqueSeconds();
    const loop = uniqueSeconds();
    try {
      let settled = false;
      const calls = Promise.all([
        host.call('hold', {
          command: `i=0; while [ $i -lt 200 ]; do setsid sleep ${burst} >/dev/null 2>&1 & i=$((i+1)); done; sleep 600`,
        }),
        host.call('hold', { command: `while :; do setsid sleep ${loop} >/dev/null 2>&1 & sleep 0.01; done` }),
        host.call('healthy', {}),
      ]).finally(() => (settled = true));
      // How many started before the time limit depends on the machine's load; that some did is
      // what makes the rest of the test mean something.
      let most = { burst: 0, loop: 0 };
      await eventually(() => {
        most = { burst: Math.max(most.burst, sleeps(burst).length), loop: Math.max(most.loop, sleeps(loop).length) };
        return settled || (most.burst >= 100 && most.loop > 0);
      }, 60_000);
      assert.ok(most.burst > 0 && most.loop > 0, `the processes started: ${JSON.stringify(most)}`);
      const [bursting, looping, healthy] = await calls;
      assert.deepEqual([bursting.status, looping.status, healthy.content], ['timeout', 'timeout', 'fine']);
      await assertNoneLeft(burst, 'burst');
      await assertNoneLeft(loop, 'loop');
    } finally {
      cleanUp(burst);
      cleanUp(loop);
    }
  });

  test('a process the tool asks to keep outlives the call, and only that one', async () => {
    const kept = uniqueSeconds();
    const other = uniqueSeconds();
    try {
      const [keep, leave] = await Promise.all([
        host.call('keep', { seconds: kept }),
        host.call('leave', { shape: 'setsid', seconds: other, ending: 'ok' }),
      ]);
      assert.deepEqual([keep.status, leave.status], ['ok', 'ok']);
      await assertNoneLeft(other, 'not kept');
      assert.equal(sleeps(kept).length, 1, 'the kept process is alive after its call');
    } finally {
      cleanUp(kept);
      cleanUp(other);
    }
  });
});

describe('a call that is stopped from outside', () => {
  test('ends every process it started when cancelled, whatever shape the process took', async () => {
    // A worker each, so that no call waits in the queue behind the ones being cancelled.
    const host = await startHost(FIXTURE, { maxThreadsPerModule: SHAPES.length });
    const runs = SHAPES.map((shape) => ({ shape, seconds: uniqueSeconds(), controller: new AbortController() }));
    try {
      const pending = runs.map(({ shape, seconds, controller }) =>
        host.call('linger', { shape, seconds }, { signal: controller.signal }),
      );
      for (const { seconds, controller } of runs) {
        assert.ok(await eventually(() => sleeps(seconds).length > 0), 'the process started');
        controller.abort();
      }
      for (const result of await Promise.all(pending)) assert.equal(result.status, 'cancelled');
      for (const { shape, seconds } of runs) await assertNoneLeft(seconds, shape);
      assert.equal((await host.call('healthy', {})).content, 'fine');
    } finally {
      for (const { seconds } of runs) cleanUp(seconds);
    }
  });

  test('ends every process a call started when its worker crashes', async () => {
    const host = await startHost(FIXTURE, { maxThreadsPerModule: 1 });
    // Two crashes: a third would disable the module.
    for (const shape of ['setsid', 'daemon']) {
      const seconds = uniqueSeconds();
      try {
        const pending = host.call('linger', { shape, seconds });
        assert.ok(await eventually(() => sleeps(seconds).length > 0), 'the process started');
        // Pools are keyed by the module's real path: the clone may sit below a symbolic link.
        for (const worker of host.moduleThreads(realpathSync(`${FIXTURE}/init.lua`))) void worker.terminate();
        assert.equal((await pending).status, 'crashed');
        await assertNoneLeft(seconds, shape);
      } finally {
        cleanUp(seconds);
      }
    }
    assert.equal((await host.call('healthy', {})).content, 'fine');
  });

  test('host.close() ends every process of the calls in flight', async () => {
    const host = await ToolHost.start({ config: FIXTURE, stateDir: tempDir(), maxThreadsPerModule: 3 });
    const runs = ['setsid', 'daemon', 'popen'].map((shape) => ({ shape, seconds: uniqueSeconds() }));
    try {
      const pending = runs.map(({ shape, seconds }) => host.call('linger', { shape, seconds }));
      for (const { seconds } of runs)
        assert.ok(await eventually(() => sleeps(seconds).length > 0), 'the process started');
      await host.close();
      for (const result of await Promise.all(pending)) assert.equal(result.status, 'cancelled');
      for (const { shape, seconds } of runs) await assertNoneLeft(seconds, shape);
    } finally {
      await host.close();
      for (const { seconds } of runs) cleanUp(seconds);
    }
  });

  test('`moonpool call` exits leaving nothing behind from a tool that left a process in a new session', async () => {
    const seconds = uniqueSeconds();
    try {
      const child = spawn(
        process.execPath,
        [
          CLI,
          'call',
          'leave',
          JSON.stringify({ shape: 'daemon', seconds, ending: 'ok' }),
          '--config',
          FIXTURE,
          '--state-dir',
          tempDir(),
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      assert.equal(code, 0);
      assert.match(stdout, /started 1/);
      await assertNoneLeft(seconds, 'after the CLI exited');
    } finally {
      cleanUp(seconds);
    }
  });
});

for (const signal of ['SIGTERM', 'SIGHUP'] as const) {
  test(`\`moonpool call\` stopped with ${signal} cancels the call and leaves nothing behind`, async () => {
    const seconds = uniqueSeconds();
    try {
      const child = spawn(
        process.execPath,
        [
          CLI,
          'call',
          'linger',
          JSON.stringify({ shape: 'daemon', seconds }),
          '--config',
          FIXTURE,
          '--state-dir',
          tempDir(),
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.ok(await eventually(() => sleeps(seconds).length > 0), 'the process started');
      child.kill(signal);
      assert.equal(
        await exited,
        128 + constants.signals[signal],
        'exits as the shell expects of a command the signal stopped',
      );
      await assertNoneLeft(seconds, `after ${signal}`);
    } finally {
      cleanUp(seconds);
    }
  });
}

describe('the /proc sweep', () => {
  test('leaves alone a recorded group whose pid now belongs to another process (pid reuse)', async () => {
    const seconds = uniqueSeconds();
    try {
      // An unrelated group leader: orphaned, untagged, started after the "task".
      const startedMs = Date.now();
      spawnSync('/bin/sh', ['-c', `setsid sleep ${seconds} >/dev/null 2>&1 &`]);
      assert.ok(await eventually(() => sleeps(seconds).length === 1));
      const pid = Number(spawnSync('pgrep', ['-f', `sleep ${seconds}`], { encoding: 'utf8' }).stdout.trim());
      sweepTaskProcesses(`test.${process.pid}.reuse`, [pid], startedMs);
      assert.equal(sleeps(seconds).length, 1, 'the process holding the reused pid is alive');
    } finally {
      cleanUp(seconds);
    }
  });

  test('finds a command that daemonizes while it is swept (a scan of /proc is no snapshot)', async () => {
    // The daemon shape swept 0–8 ms after it starts: before the sweep waited for /proc to settle,
    // about one sweep in four missed a shell that forked and ended between the listing and its
    // read, and with it the sleep it left behind.
    const seconds = uniqueSeconds();
    const tag = `test.${process.pid}.settle`;
    try {
      for (let round = 0; round < 40; round++) {
        const startedMs = Date.now();
        const leader = spawn('/bin/sh', ['-c', `setsid sh -c 'sleep ${seconds} & exit' >/dev/null 2>&1 &`], {
          detached: true,
          stdio: 'ignore',
          env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag },
        });
        await new Promise((resolve) => setTimeout(resolve, round % 9));
        sweepTaskProcesses(tag, [leader.pid!], startedMs);
        await assertNoneLeft(seconds, `swept ${round % 9} ms after the start`);
      }
    } finally {
      cleanUp(seconds);
    }
  });

  test('kills what carries the tag or descends from a group, and leaves every other process alone', async () => {
    const tagged = uniqueSeconds();
    const bystander = uniqueSeconds();
    const tag = `test.${process.pid}.${Date.now()}`;
    const startedMs = Date.now();
    try {
      const leader = spawn('/bin/sh', ['-c', `setsid sleep ${tagged} & exec sleep ${tagged}`], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag },
      });
      const other = spawn('/bin/sh', ['-c', `exec sleep ${bystander}`], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [PROCESS_TAG_VARIABLE]: `${tag}.other` },
      });
      assert.ok(await eventually(() => sleeps(tagged).length === 2 && sleeps(bystander).length === 1));
      assert.ok(sweepTaskProcesses(tag, [leader.pid!], startedMs) >= 2);
      await assertNoneLeft(tagged, 'tagged');
      assert.equal(sleeps(bystander).length, 1, 'a process with another tag is untouched');
      other.kill('SIGKILL');
    } finally {
      cleanUp(tagged);
      cleanUp(bystander);
    }
  });
});
