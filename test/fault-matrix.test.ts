// The fault matrix: whatever a tool does in `run`, its call resolves once with a status and a
// message that says what happened, the host keeps serving, calls to other modules running at the
// same time succeed, and nothing (worker thread, child process) is left once the host closes.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { CallResult, ToolHost } from '../core/index.js';
import { eventually, FIXTURES, liveProcesses, startHost, uniqueSeconds } from './helpers.js';

const threads = (): number => readdirSync('/proc/self/task').length;
const baselineThreads = threads();

describe('fault matrix', async () => {
  const host = await startHost('matrix', { availableTimeoutMs: 500, maxThreadsPerModule: 2 });
  const deepFile = join(FIXTURES, 'matrix', 'lua', 'deep.lua');

  /** Runs `name` while the healthy module answers alongside; every healthy answer must be right. */
  async function callBesideHealthy(name: string, args: Record<string, unknown> = {}): Promise<CallResult> {
    let stop = false;
    const healthy = (async () => {
      let answered = 0;
      while (!stop) {
        const text = `beside ${name} ${answered}`;
        const result = await host.call('echo', { text });
        assert.deepEqual([result.status, result.content], ['ok', text]);
        answered++;
      }
      return answered;
    })();
    const result = await host.call(name, args);
    stop = true;
    assert.ok((await healthy) > 0);
    return result;
  }

  const rows: [string, Record<string, unknown>, CallResult['status'], RegExp][] = [
    ['boom', {}, 'error', /faulty\.lua:\d+: boom\nstack traceback:/],
    [
      'deep',
      {},
      'error',
      new RegExp(`^${deepFile}:3: failed deep inside\\nstack traceback:[\\s\\S]*${deepFile}:4: in`),
    ],
    ['spin', {}, 'timeout', /spin: timed out after 1 s/],
    ['backtrack', {}, 'timeout', /backtrack: timed out after 1 s/],
    ['huge_rep', {}, 'error', /resulting string too large|out of memory/],
    ['recurse', {}, 'error', /stack overflow/],
    ['bomb', {}, 'error', /bomb: out of memory \(the Lua heap is capped at 256 MiB\)/],
    ['exit', {}, 'error', /^exit: os\.exit\(3\)$/],
    ['returns', { kind: 'nil' }, 'error', /run returned nil/],
    ['returns', { kind: 'number' }, 'error', /run returned a number \(42\)/],
    ['returns', { kind: 'table' }, 'error', /run returned a table without a `content` field/],
    ['returns', { kind: 'function' }, 'error', /run returned a function/],
  ];
  for (const [name, args, status, message] of rows) {
    test(`${name} ${JSON.stringify(args)} ends as ${status}, and the healthy module answers meanwhile`, async () => {
      const result = await callBesideHealthy(name, args);
      assert.equal(result.status, status, result.content);
      assert.match(result.content, message);
    });
  }

  test('capture of a sleep, and of a command that starts its own children, time out and leave no process', async () => {
    for (const name of ['sleepy', 'family']) {
      const seconds = uniqueSeconds();
      const result = await callBesideHealthy(name, { seconds });
      assert.equal(result.status, 'timeout');
      assert.ok(
        await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
        liveProcesses(`sleep ${seconds}`).join('\n'),
      );
    }
  });

  test('a print storm reaches the host as a bounded log with a note of what was dropped, and the host keeps answering', async () => {
    let logged = 0;
    let lines = 0;
    let last = '';
    let titles = 0;
    const options = {
      onLog: (text: string) => {
        logged += text.length;
        lines++;
        last = text;
      },
      onTitle: () => titles++,
    };
    const pending = host.call('chatty', {}, options);
    let answered = 0;
    let done = false;
    void pending.then(() => (done = true));
    while (!done) {
      assert.equal((await host.call('echo', { text: 'still here' })).content, 'still here');
      answered++;
    }
    const result = await pending;
    assert.equal(result.status, 'ok', result.content);
    assert.equal(result.title, '100000');
    assert.ok(answered > 0);
    assert.ok(logged <= 1_100_000, `${logged} characters of log reached the host`);
    assert.match(
      last,
      /^\[moonpool: \d+ more lines \([\d,]+ characters\) of this call's log were dropped past its 1,000,000-character limit\]$/,
    );
    assert.ok(lines < 100_000);
    assert.ok(titles < 3000, `${titles} title events`);
  });

  test('invalid UTF-8 arrives escaped and NUL bytes intact', async () => {
    const result = await host.call('bytes', {});
    assert.equal(result.content, 'ok\0nul\\xff\\xfeend');
  });

  test('available that raises, loops, or returns a non-boolean makes the tool unavailable with the reason', () => {
    const gates = Object.fromEntries(
      host
        .allTools()
        .filter((tool) => tool.name.startsWith('gate_'))
        .map((tool) => [tool.name, tool]),
    );
    assert.equal(gates['gate_throws']!.available, false);
    assert.match(gates['gate_throws']!.unavailableReason, /available\(\) raised an error: .*no prerequisites/);
    assert.equal(gates['gate_loops']!.available, false);
    assert.match(gates['gate_loops']!.unavailableReason, /available\(\) did not answer within 0\.5 s/);
    assert.equal(gates['gate_string']!.available, false);
    assert.match(
      gates['gate_string']!.unavailableReason,
      /available\(\) returned a string; it must return true or false/,
    );
    assert.deepEqual(
      host.tools().filter((tool) => tool.name.startsWith('gate_')),
      [],
    );
  });

  test('a cancelled call of a tool that never ends resolves as cancelled', async () => {
    const controller = new AbortController();
    const pending = host.call('spin', {}, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    const result = await pending;
    assert.equal(result.status, 'cancelled');
  });
});

describe('workers that die', () => {
  /** Terminates the module's running workers from outside, as a fault in the runtime would. */
  function killWorkers(host: ToolHost, module: string): void {
    for (const worker of host.moduleThreads(module)) void worker.terminate();
  }

  test('a worker that dies is a crashed call; after 3 crashes in 5 minutes the module is disabled until reload', async () => {
    // One worker per module: the one killed is the one running the call.
    const host = await startHost('matrix', { maxThreadsPerModule: 1 });
    const module = join(FIXTURES, 'matrix', 'lua', 'faulty.lua');
    for (let i = 1; i <= 3; i++) {
      const seconds = uniqueSeconds();
      const pending = host.call('nap', { seconds });
      // Only once the call is running (its sleep exists) is its worker's death a crash of the call.
      assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length > 0, 10_000));
      killWorkers(host, module);
      const result = await pending;
      assert.equal(result.status, 'crashed', result.content);
      assert.match(result.content, /nap: the worker running it crashed/);
      assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0));
    }
    const disabled = await host.call('boom', {});
    assert.equal(disabled.status, 'crashed');
    assert.match(
      disabled.content,
      /boom: disabled after its workers crashed 3 times in 5 minutes; fix the tool and reload/,
    );
    assert.equal((await host.call('echo', { text: 'other modules still work' })).status, 'ok');
    const reloaded = await host.reload();
    assert.equal(reloaded.ok, true, JSON.stringify(reloaded.diagnostics));
    assert.equal((await host.call('boom', {})).status, 'error');
  });
});

describe('workers lost while starting', () => {
  test('a worker killed before it is ready does not strand the call waiting for it (a pool must start another)', async () => {
    const host = await startHost('matrix');
    const module = join(FIXTURES, 'matrix', 'lua', 'faulty.lua');
    const pending = host.call('boom', {});
    await eventually(() => host.moduleThreads(module).length > 0, 5000);
    for (const worker of host.moduleThreads(module)) void worker.terminate();
    const result = await pending;
    assert.ok(['error', 'crashed'].includes(result.status), `${result.status}: ${result.content}`);
    assert.equal((await host.call('boom', {})).status, 'error');
  });

  test(
    'killing every worker of a pool again and again, some still starting, leaves no queued call behind',
    { timeout: 60_000 },
    async () => {
      const host = await startHost('matrix', { maxThreadsPerModule: 2 });
      const module = join(FIXTURES, 'matrix', 'lua', 'faulty.lua');
      const pending = Array.from({ length: 8 }, () => host.call('nap', { seconds: '0.2' }));
      for (let round = 0; round < 4; round++) {
        await eventually(() => host.moduleThreads(module).length > 0, 5000);
        for (const worker of host.moduleThreads(module)) void worker.terminate();
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      const results = await Promise.all(pending);
      // Each call ends once: woken, or crashed with its worker (or refused once the module is disabled).
      for (const result of results)
        assert.ok(['ok', 'crashed'].includes(result.status), `${result.status}: ${result.content}`);
    },
  );
});

describe('closing', () => {
  test('close() with calls in flight, one that never ends, resolves them as cancelled and returns', async () => {
    const host = await startHost('matrix');
    const pending = [host.call('spin', {}), host.call('sleepy', { seconds: uniqueSeconds() }), host.call('bomb', {})];
    await new Promise((resolve) => setTimeout(resolve, 300));
    await host.close();
    assert.deepEqual(
      (await Promise.all(pending)).map((result) => result.status),
      ['cancelled', 'cancelled', 'cancelled'],
    );
  });
});

after(async () => {
  assert.ok(
    await eventually(() => threads() <= baselineThreads + 2, 5000),
    `${threads()} threads, ${baselineThreads} before the suite`,
  );
});
