// A worker is either healthy or retired: yields that reach moonpool's entry thread are refused as
// native Lua refuses them, a WebAssembly trap discards the Lua state and counts as a crash in run,
// render and available, only a refused allocation is the heap cap, and a tool's own debug hook
// keeps its events. Each attack runs beside a healthy tool of the same module.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodeMsgpack } from '../core/msgpack-codec.js';
import { FIXTURES, startHost } from './helpers.js';

const VIEW = { width: 60, height: 10, expand: false };
const MODULES = join(FIXTURES, 'integrity', 'lua');
const TRAP = 'its Lua state broke (a WebAssembly trap: memory access out of bounds) and was discarded';

async function integrityHost(): ReturnType<typeof startHost> {
  return startHost('integrity', { maxThreadsPerModule: 1 });
}

describe('yields that reach the entry thread', () => {
  test('a top-level coroutine.yield of a 1,000-deep table is the native error, and the module keeps its state', async () => {
    const host = await integrityHost();
    assert.equal((await host.call('counter', {})).content, '1');
    const results = await Promise.all([
      host.call('yield_top', {}),
      host.call('counter', {}),
      host.call('yield_top', {}),
      host.call('counter', {}),
    ]);
    for (const yielded of [results[0], results[2]]) {
      assert.equal(yielded.status, 'error');
      assert.match(yielded.content, /^attempt to yield from outside a coroutine\n/);
    }
    assert.deepEqual([results[1].content, results[3].content], ['2', '3']);
    assert.equal((await host.call('counter', {})).content, '4');
  });

  test('nothing behind coroutine.yield lets a tool yield the entry thread, with or without values', async () => {
    const host = await integrityHost();
    for (const args of [{ count: 0 }, {}]) {
      const result = await host.call('yield_raw', args);
      assert.equal(result.status, 'error');
      assert.match(
        result.content,
        /^attempt to yield from outside a coroutine\nstack traceback:\n\t\[C\]: in function 'coroutine\.yield'/,
      );
    }
    assert.equal((await host.call('counter', {})).content, '1');
    assert.equal((await host.call('counter', {})).content, '2');
  });

  test('run sees the main thread: coroutine.running says main, isyieldable says no, generators still work', async () => {
    const host = await integrityHost();
    // main, isyieldable in run | main, isyieldable inside a coroutine | sum of a wrapped generator
    assert.equal((await host.call('thread_view', {})).content, 'true false | false true | 10');
  });
});

describe('WebAssembly traps', () => {
  test('a trap in run is a crash naming the trap, and the next call of the module starts from a fresh state', async () => {
    const host = await integrityHost();
    assert.equal((await host.call('trap_counter', {})).content, '1');
    assert.equal((await host.call('trap_counter', {})).content, '2');
    const [trapped, healthy] = await Promise.all([host.call('trap', {}), host.call('counter', {})]);
    assert.equal(trapped.status, 'crashed');
    assert.equal(trapped.content, `trap: the worker running it crashed (${TRAP}); the next call starts a fresh one`);
    assert.equal(healthy.content, '1');
    assert.equal((await host.call('trap_counter', {})).content, '1');
    assert.equal(host.stats().modules[join(MODULES, 'traps.lua')]!.crashes, 1);
  });

  test('pcall cannot catch a trap: the state is discarded all the same', async () => {
    const host = await integrityHost();
    assert.equal((await host.call('caught_counter', {})).content, '1');
    const caught = await host.call('caught_trap', {});
    assert.equal(caught.status, 'crashed');
    assert.match(caught.content, /a WebAssembly trap/);
    assert.equal((await host.call('caught_counter', {})).content, '1');
  });

  test('three traps disable the module, never the other modules', async () => {
    const host = await integrityHost();
    for (let i = 0; i < 3; i++) assert.equal((await host.call('trap', {})).status, 'crashed');
    const disabled = await host.call('trap_counter', {});
    assert.equal(disabled.status, 'crashed');
    assert.match(disabled.content, /disabled after its workers crashed 3 times/);
    assert.equal((await host.call('counter', {})).content, '1');
  });

  test('a trap in render is its reason, counts as a crash of the module, and the next render works', async () => {
    const host = await integrityHost();
    const trapped = await host.render('trap', encodeMsgpack({}), VIEW);
    assert.deepEqual(trapped, { ok: false, reason: `render crashed its worker: ${TRAP}` });
    assert.deepEqual(await host.render('trap_counter', encodeMsgpack({ count: 7 }), VIEW), {
      ok: true,
      lines: ['count 7'],
    });
    await host.call('trap_counter', {});
    assert.equal(host.stats().modules[join(MODULES, 'traps.lua')]!.crashes, 1);
  });

  test('a trap in available makes the tool unavailable with the reason, and the inspect worker starts afresh', async () => {
    const host = await integrityHost();
    const tool = host.allTools().find((entry) => entry.name === 'available_trap')!;
    assert.equal(tool.available, false);
    assert.equal(tool.unavailableReason, `available() crashed its worker: ${TRAP}`);
    assert.deepEqual(await host.render('trap_counter', encodeMsgpack({ count: 1 }), VIEW), {
      ok: true,
      lines: ['count 1'],
    });
  });
});

describe('the heap cap', () => {
  test("error('not enough memory') is the tool's own error, not the heap cap, and the worker is kept", async () => {
    const host = await integrityHost();
    assert.equal((await host.call('counter', {})).content, '1');
    const positioned = await host.call('says_oom', {});
    assert.equal(positioned.status, 'error');
    assert.match(positioned.content, /init\.lua:\d+: not enough memory\n/);
    // At level 0 Lua itself raises it as a memory error: no allocation was refused, so it is not the cap.
    const bare = await host.call('says_oom', { level: 0 });
    assert.equal(bare.status, 'error');
    assert.equal(bare.content, 'not enough memory');
    assert.equal((await host.call('counter', {})).content, '2');
  });

  test('a real heap cap hit is reported as such and its worker retires', async () => {
    const host = await startHost('integrity', { maxThreadsPerModule: 1, memoryLimitBytes: 32 * 1024 * 1024 });
    assert.equal((await host.call('counter', {})).content, '1');
    const result = await host.call('real_oom', {});
    assert.equal(result.content, 'real_oom: out of memory (the Lua heap is capped at 32 MiB)');
    assert.equal((await host.call('counter', {})).content, '1');
  });
});

describe("a tool's own debug hook", () => {
  test('sees every call and line event it asked for while moonpool hooks the same thread for its log', async () => {
    const host = await integrityHost();
    let lines = 0;
    const result = await host.call('own_hooks', {}, { onLog: () => lines++ });
    assert.equal(result.status, 'ok');
    // calls of marker, line events in body (native Lua counts 1,012: count events re-trigger a
    // line event), count events seen, the mask and count debug.gethook reports, then none left.
    const [calls, bodyLines, counted, mask, count, after] = result.content.split(' ');
    assert.equal(calls, '1000');
    assert.ok(Number(bodyLines) >= 1000, result.content);
    assert.deepEqual([counted, mask, count, after], ['true', 'cl', '1000', 'nil']);
    assert.ok(lines >= 1000);
  });

  test('clearing the hook with debug.sethook() does not switch off the render budget', async () => {
    const host = await integrityHost();
    assert.deepEqual(await host.render('own_hooks', encodeMsgpack({}), VIEW), {
      ok: false,
      reason: 'render failed: took longer than its 50 ms budget',
    });
  });
});
