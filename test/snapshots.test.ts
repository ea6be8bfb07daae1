// Live state: ctx:show coalesced in the worker (the host sees a bounded stream and always the
// last state), bad states as Lua errors naming their path, and render in the inspect pool.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decodeMsgpack, encodeMsgpack } from '../core/msgpack-codec.js';
import { FIXTURES, startHost } from './helpers.js';

const hostReady = startHost('snapshots');
const VIEW = { width: 60, height: 10, expand: false };

describe('ctx:show', () => {
  test('a million ctx:show calls reach the host as a few hundred snapshots, the last one exact', async () => {
    let received = 0;
    const result = await (await hostReady).call('storm', {}, { onSnapshot: () => received++ });
    assert.equal(result.status, 'ok');
    assert.deepEqual(decodeMsgpack(result.snapshot!), { i: 1_000_000 });
    assert.ok(received >= 1 && received <= 300, `received ${received} snapshots`);
  });

  test('a state holding a function is a Lua error naming the path and the ctx:show line', async () => {
    const result = await (await hostReady).call('bad_state', {});
    assert.equal(result.status, 'error');
    const file = join(FIXTURES, 'snapshots', 'init.lua');
    assert.ok(result.content.startsWith(`${file}:17: ctx:show: state.items[3].cb is a function`), result.content);
  });

  test('a state shown before a long capture arrives while the capture runs', async () => {
    const started = Date.now();
    const arrivals: [number, unknown][] = [];
    const result = await (await hostReady).call('waits', { seconds: 0.5 }, { onSnapshot: (bytes) => arrivals.push([Date.now() - started, decodeMsgpack(bytes)]) });
    assert.equal(result.status, 'ok');
    assert.deepEqual(arrivals[0]![1], { phase: 'waiting' });
    assert.ok(arrivals[0]![0] < 400, `the first state arrived after ${arrivals[0]![0]} ms`);
    assert.deepEqual(decodeMsgpack(result.snapshot!), { phase: 'done' });
  });
});

test('a state left pending while Lua computes without showing arrives long before the end', async () => {
  const started = Date.now();
  const arrivals: [number, unknown][] = [];
  const result = await (await hostReady).call('show_then_compute', {}, { onSnapshot: (bytes) => arrivals.push([Date.now() - started, decodeMsgpack(bytes)]) });
  assert.equal(result.status, 'ok');
  const computing = arrivals.find(([, state]) => (state as { phase: string }).phase === 'computing');
  assert.ok(computing, JSON.stringify(arrivals));
  assert.ok(computing[0] < 500, `'computing' arrived after ${computing[0]} ms of a 1 s computation`);
});

test('log lines and a title left pending while Lua computes arrive long before the end, in order', async () => {
  const started = Date.now();
  const lines: [number, string][] = [];
  const titles: string[] = [];
  const result = await (await hostReady).call('print_then_compute', {}, { onLog: (text) => lines.push([Date.now() - started, text]), onTitle: (text) => titles.push(text) });
  assert.equal(result.status, 'ok');
  assert.deepEqual(lines.map(([, text]) => text), ['starting', 'computing']);
  assert.ok(lines[1]![0] < 500, `'computing' arrived after ${lines[1]![0]} ms of a 1 s computation`);
  assert.equal(titles.at(-1), 'second');
  assert.equal(result.title, 'second');
});

describe('render', () => {
  test('a string is split into lines and an array of lines is kept', async () => {
    const host = await hostReady;
    assert.deepEqual(await host.render('renders', encodeMsgpack({ mode: 'string' }), VIEW), { ok: true, lines: ['one', 'two'] });
    assert.deepEqual(await host.render('renders', encodeMsgpack({ mode: 'lines' }), VIEW), { ok: true, lines: ['first', 'second'] });
  });

  test('an error, an overrun and a wrong return type fall back with the reason', async () => {
    const host = await hostReady;
    const reasons = await Promise.all(['error', 'loop', 'number'].map(async (mode) => host.render('renders', encodeMsgpack({ mode }), VIEW)));
    assert.deepEqual(reasons.map((reply) => reply.ok), [false, false, false]);
    const [error, loop, number] = reasons.map((reply) => (reply.ok ? '' : reply.reason));
    assert.match(error!, /^render failed: .*init\.lua:\d+: render broke$/);
    assert.equal(loop, 'render failed: took longer than its 50 ms budget');
    assert.equal(number, 'render returned a number (42); return a string or an array of lines');
  });

  test('a tool without render, and one the config no longer has, get the default block', async () => {
    const host = await hostReady;
    assert.deepEqual(await host.render('storm', encodeMsgpack({ i: 1 }), VIEW), { ok: false, reason: null });
    assert.deepEqual(await host.render('gone', encodeMsgpack({ i: 1 }), VIEW), { ok: false, reason: 'gone is not defined in the current config' });
  });

  test('while a tool spins in pure Lua, render of its latest snapshot answers within 100 ms', async () => {
    const host = await hostReady;
    let latest: Uint8Array | undefined;
    const running = host.call('spin_showing', { seconds: 5 }, { onSnapshot: (bytes) => (latest = bytes) });
    while (!latest) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const rendered = await host.render('spin_showing', latest, { ...VIEW, expand: true });
      const elapsed = performance.now() - started;
      assert.deepEqual(rendered, { ok: true, lines: ['spinning at width 60', '- a', '- b', '- c'] });
      assert.ok(elapsed < 100, `render took ${elapsed.toFixed(1)} ms`);
    }
    assert.equal((await running).status, 'ok');
  });
});
