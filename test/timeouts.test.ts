// A tool stuck in a child process is stopped at its timeout: the call returns promptly, its
// whole process group is gone, and the next call to the module gets a fresh worker. The calls
// that must succeed go to `nap`, whose timeout is the default: a 1 s limit on starting `sleep 0`
// is a speed a loaded machine may not have.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, liveProcesses, startHost, uniqueSeconds } from './helpers.js';

test("capture('sleep 600') with timeout = 1 returns a timeout long before the sleep ends and leaves no sleep behind", async () => {
  const host = await startHost('sleeper');
  // A warm module: starting a worker is not part of a call's time (it does not count against timeouts).
  assert.equal((await host.call('nap', { seconds: '0' })).status, 'ok');
  const seconds = uniqueSeconds();
  const started = Date.now();
  const result = await host.call('stuck', { seconds });
  const elapsed = Date.now() - started;
  assert.equal(result.status, 'timeout');
  assert.match(result.content, /stuck: timed out after 1 s \(set `timeout` in registry:add to allow longer\)/);
  // Cut off, not waited for: a tenth of the sleep is far more than any machine needs.
  assert.ok(elapsed < (Number(seconds) * 1000) / 10, `took ${elapsed} ms`);
  assert.ok(
    await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
    liveProcesses(`sleep ${seconds}`).join('\n'),
  );

  const next = await host.call('nap', { seconds: '0' });
  assert.equal(next.status, 'ok');
  assert.equal(next.content, 'woke up');
});

test('a command that starts its own children in the background loses all of them at the timeout', async () => {
  const host = await startHost('sleeper');
  const seconds = uniqueSeconds();
  const result = await host.call('spawner', { seconds });
  assert.equal(result.status, 'timeout');
  assert.ok(
    await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
    liveProcesses(`sleep ${seconds}`).join('\n'),
  );
});

test('cancelling a call with an AbortSignal resolves it as cancelled and kills its processes', async () => {
  const host = await startHost('sleeper');
  const seconds = uniqueSeconds();
  const controller = new AbortController();
  // `nap`: with `stuck`, a sleep seen late on a loaded machine would meet its 1 s timeout first.
  const pending = host.call('nap', { seconds }, { signal: controller.signal });
  assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length > 0));
  controller.abort();
  const result = await pending;
  assert.equal(result.status, 'cancelled');
  assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0));
});

test('a signal aborted before the call cancels it without running it', async () => {
  const host = await startHost('sleeper');
  const result = await host.call('stuck', { seconds: '0' }, { signal: AbortSignal.abort() });
  assert.equal(result.status, 'cancelled');
});

test('call options read through getters (a class instance) are honoured: its signal cancels the call', async () => {
  const host = await startHost('sleeper');
  const controller = new AbortController();
  class Options {
    get signal(): AbortSignal {
      return controller.signal;
    }
  }
  const result = await host.call('stuck', { seconds: '0' }, new Options());
  assert.equal(result.status, 'ok');
  controller.abort();
  assert.equal((await host.call('stuck', { seconds: '0' }, new Options())).status, 'cancelled');
});
