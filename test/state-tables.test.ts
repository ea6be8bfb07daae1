// States cross as Lua tables: `render` receives the table that was shown — integer, float, string
// and boolean keys kept apart, sparse arrays and exact number types intact, more than 65,535 keys —
// within the documented limits (16 MiB, 200 levels); values that cannot cross are refused at
// ctx:show with their path; snapshots recorded before (by msgpackr 2.1.4) still render.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { encodeMsgpack } from '../core/msgpack-codec.js';
import { FIXTURES, startHost } from './helpers.js';

const FILE = join(FIXTURES, 'states', 'init.lua');
/** The fixture's render draws by width: 1 three lookups, 2 a summary, 3 the depth, else everything. */
const view = (width: number) => ({ width, height: 10, expand: false });
const DESCRIBE = view(80);

const hostReady = startHost('states', { renderBudgetMs: 5000 });

/** Shows a state of `kind`; returns what run described and what render described of what it got. */
async function roundTrip(kind: string, width = 80): Promise<{ shown: string; rendered: string }> {
  const host = await hostReady;
  const result = await host.call('show', { kind });
  assert.equal(result.status, 'ok', result.content);
  const rendered = await host.render('show', result.snapshot!, view(width));
  assert.ok(rendered.ok, JSON.stringify(rendered));
  return { shown: result.content, rendered: rendered.lines.join('\n') };
}

describe('render receives the table that was shown', () => {
  for (const kind of ['int_and_string_keys', 'sparse', 'numbers', 'other_keys', 'bytes']) {
    test(`${kind}: every key and value arrives with its Lua type and value`, async () => {
      const { shown, rendered } = await roundTrip(kind);
      assert.equal(rendered, shown);
    });
  }

  test('{[200] = 5} arrives as s[200], apart from s["200"]', async () => {
    const host = await hostReady;
    const result = await host.call('show', { kind: 'int_and_string_keys' });
    assert.deepEqual(await host.render('show', result.snapshot!, view(1)), { ok: true, lines: ['5', 'text', '5'] });
  });

  test('a state with 70,000 string keys and 70,000 sparse integer keys crosses whole', async () => {
    const { shown, rendered } = await roundTrip('many_keys', 2);
    assert.equal(shown, '70000 words, 70000 sparse, 70000 sparse keys intact, words.w70000 = 70000');
    assert.equal(rendered, shown);
  });

  test('200 levels of nesting cross; 201 are refused at ctx:show naming the limit', async () => {
    assert.deepEqual(await roundTrip('depth_200', 3), { shown: '200 levels', rendered: '200 levels' });
    const refused = await (await hostReady).call('show', { kind: 'depth_201' });
    assert.equal(refused.status, 'error');
    assert.match(
      refused.content,
      new RegExp(`^${FILE}:\\d+: ctx:show: state(\\.next){200} is nested deeper than 200 levels\\n`),
    );
  });
});

describe('values that cannot cross are refused at ctx:show with their path', () => {
  const cases: [string, string][] = [
    ['function_key', 'state.inner has a key of type function: only string, number and boolean keys can cross'],
    ['table_key', 'state has a key of type table: only string, number and boolean keys can cross'],
    ['thread_value', 'state.list[2] is a thread: only strings, numbers, booleans and tables can cross'],
    ['userdata_value', 'state.id is a userdata: only strings, numbers, booleans and tables can cross'],
  ];
  for (const [kind, message] of cases) {
    test(`${kind}: ${message}`, async () => {
      const host = await hostReady;
      const [refused, healthy] = await Promise.all([host.call('show', { kind }), host.call('echo', { text: kind })]);
      assert.equal(refused.status, 'error');
      assert.match(refused.content, new RegExp(`^${FILE}:\\d+: ctx:show: ${message.replace(/[[\]().]/g, '\\$&')}\\n`));
      assert.equal(healthy.content, kind);
    });
  }
});

describe('snapshots from before, and damaged ones', () => {
  test('a snapshot msgpackr encoded (sessions recorded by earlier versions) still renders', async () => {
    const host = await hostReady;
    // The bytes msgpackr 2.1.4 wrote for { counts: { '200': 5 }, list: [1, 2.5, 'three'], raw: <ff 00>, flag: true, none: null }.
    const old = readFileSync(join(FIXTURES, 'msgpackr-era', 'snapshot.msgpack'));
    const rendered = await host.render('show', old, DESCRIBE);
    assert.deepEqual(rendered, {
      ok: true,
      lines: [
        's = table (4 keys)',
        's[string:"counts"] = table (1 keys)',
        's[string:"counts"][string:"200"] = integer 5',
        's[string:"flag"] = boolean true',
        's[string:"list"] = table (3 keys)',
        's[string:"list"][integer:1] = integer 1',
        's[string:"list"][integer:2] = float 0x1.4p+1',
        's[string:"list"][integer:3] = string "three"',
        // %q keeps byte 255 as it is; the line reaches the host with it written as \xff.
        's[string:"raw"] = string "\\xff\\0"',
      ],
    });
  });

  for (const [name, bytes] of [
    ['an unknown byte', [0xc1]],
    ['a value cut short', [0x92, 0x01]],
    ['bytes after the value', [0x01, 0x02]],
    ['a map claiming more entries than bytes', [0xdf, 0xff, 0xff, 0xff, 0xff]],
  ] as const) {
    test(`a damaged snapshot (${name}) is the render's reason, and the next render works`, async () => {
      const host = await hostReady;
      const rendered = await host.render('show', new Uint8Array(bytes), DESCRIBE);
      assert.equal(rendered.ok, false);
      assert.match((rendered as { reason: string }).reason, /^the snapshot could not be read: /);
      assert.deepEqual(await host.render('show', encodeMsgpack({ a: 1 }), DESCRIBE), {
        ok: true,
        lines: ['s = table (1 keys)', 's[string:"a"] = integer 1'],
      });
    });
  }

  test('a snapshot nested past 200 levels is refused by render, not by a crash', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 250; i++) deep = [deep];
    const rendered = await (await hostReady).render('show', encodeMsgpack(deep), DESCRIBE);
    assert.deepEqual(rendered, {
      ok: false,
      reason: 'the snapshot could not be read: the snapshot is nested deeper than 200 levels',
    });
  });
});
