// Live state: ctx:show coalesced in the worker (the host sees a bounded stream and always the
// last state), bad states as Lua errors naming their path, and render in the inspect pool.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decodeMsgpack, encodeMsgpack } from '../core/msgpack-codec.js';
import { FIXTURES, startHost, tempDir } from './helpers.js';

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
    const line =
      readFileSync(file, 'utf8')
        .split('\n')
        .findIndex((text) => text.includes('ctx:show { items')) + 1;
    assert.ok(result.content.startsWith(`${file}:${line}: ctx:show: state.items[3].cb is a function`), result.content);
  });

  test('a state shown before a long capture arrives while the capture runs', async () => {
    // The capture waits for a file the test writes only once the state has arrived.
    const release = join(tempDir(), 'release');
    const arrivals: unknown[] = [];
    const onSnapshot = (bytes: Uint8Array): void => {
      arrivals.push(decodeMsgpack(bytes));
      writeFileSync(release, '');
    };
    const result = await (await hostReady).call('waits', { until: release }, { onSnapshot });
    assert.equal(result.status, 'ok', result.content);
    assert.deepEqual(arrivals[0], { phase: 'waiting' });
    assert.deepEqual(decodeMsgpack(result.snapshot!), { phase: 'done' });
  });
});

// The tools below compute until the test writes a file, which it does only once what they left
// pending has arrived: held back until the end, it would never arrive and they would give up.
test('a state left pending while Lua computes without showing arrives while it computes', async () => {
  const release = join(tempDir(), 'release');
  const arrivals: unknown[] = [];
  const onSnapshot = (bytes: Uint8Array): void => {
    const state = decodeMsgpack(bytes) as { phase: string };
    arrivals.push(state);
    if (state.phase === 'computing') writeFileSync(release, '');
  };
  const result = await (await hostReady).call('show_then_compute', { until: release }, { onSnapshot });
  assert.deepEqual([result.status, result.content], ['ok', 'computed'], JSON.stringify(arrivals));
});

test('log lines and a title left pending while Lua computes arrive while it computes, in order', async () => {
  const release = join(tempDir(), 'release');
  const lines: string[] = [];
  const titles: string[] = [];
  const onLog = (text: string): void => {
    lines.push(text);
    if (text === 'computing' && titles.at(-1) === 'second') writeFileSync(release, '');
  };
  const onTitle = (text: string): void => {
    titles.push(text);
    if (text === 'second' && lines.at(-1) === 'computing') writeFileSync(release, '');
  };
  const result = await (await hostReady).call('print_then_compute', { until: release }, { onLog, onTitle });
  assert.deepEqual([result.status, result.content], ['ok', 'computed'], `${lines.join('|')} ${titles.join('|')}`);
  assert.deepEqual(lines, ['starting', 'computing']);
  assert.equal(result.title, 'second');
});

describe('render', () => {
  test('a string is split into lines and an array of lines is kept', async () => {
    const host = await hostReady;
    assert.deepEqual(await host.render('renders', encodeMsgpack({ mode: 'string' }), VIEW), {
      ok: true,
      lines: ['one', 'two'],
    });
    assert.deepEqual(await host.render('renders', encodeMsgpack({ mode: 'lines' }), VIEW), {
      ok: true,
      lines: ['first', 'second'],
    });
  });

  test('an error, an overrun and a wrong return type fall back with the reason', async () => {
    const host = await hostReady;
    const reasons = await Promise.all(
      ['error', 'loop', 'number'].map(async (mode) => host.render('renders', encodeMsgpack({ mode }), VIEW)),
    );
    assert.deepEqual(
      reasons.map((reply) => reply.ok),
      [false, false, false],
    );
    const [error, loop, number] = reasons.map((reply) => (reply.ok ? '' : reply.reason));
    assert.match(error!, /^render failed: .*init\.lua:\d+: render broke$/);
    assert.equal(loop, 'render failed: took longer than its 50 ms budget');
    assert.equal(number, 'render returned a number (42); return a string or an array of lines');
  });

  test('a tool without render, and one the config no longer has, get the default block', async () => {
    const host = await hostReady;
    assert.deepEqual(await host.render('storm', encodeMsgpack({ i: 1 }), VIEW), { ok: false, reason: null });
    assert.deepEqual(await host.render('gone', encodeMsgpack({ i: 1 }), VIEW), {
      ok: false,
      reason: 'gone is not defined in the current config',
    });
  });

  test('while a tool spins in pure Lua, render of its latest snapshot answers', async () => {
    // The tool spins until the test writes a file, which it does after the renders: each of them
    // must answer while the tool still runs.
    const host = await hostReady;
    const release = join(tempDir(), 'release');
    let latest: Uint8Array | undefined;
    let ended = false;
    const running = host
      .call('spin_showing', { until: release }, { onSnapshot: (bytes) => (latest = bytes) })
      .finally(() => (ended = true));
    while (!latest) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 5; i++) {
      const rendered = await host.render('spin_showing', latest, { ...VIEW, expand: true });
      assert.deepEqual(rendered, { ok: true, lines: ['spinning at width 60', '- a', '- b', '- c'] });
    }
    assert.equal(ended, false, 'the tool was still spinning');
    writeFileSync(release, '');
    const result = await running;
    assert.deepEqual([result.status, result.content], ['ok', 'spun']);
  });
});
