// moonpool's own msgpack (core/msgpack-codec.ts): values round-trip, logs and snapshots msgpackr
// wrote still read, `__proto__` stays data, and hostile bytes are a MsgpackError, never a hang.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decodeMsgpack, encodeMsgpack, MAX_MSGPACK_DEPTH, scanMsgpackMap } from '../core/msgpack-codec.js';
import { MsgpackError } from '../shared/msgpack.js';
import { readSession } from '../core/session-log.js';
import { FIXTURES, tempDir } from './helpers.js';

const roundTrip = (value: unknown): unknown => decodeMsgpack(encodeMsgpack(value));

describe('values round-trip', () => {
  test('numbers at every width boundary, -0 and floats come back equal', () => {
    const numbers = [
      0,
      1,
      127,
      128,
      255,
      256,
      65535,
      65536,
      2 ** 32 - 1,
      2 ** 32,
      Number.MAX_SAFE_INTEGER,
      -1,
      -32,
      -33,
      -128,
      -129,
      -32768,
      -32769,
      -(2 ** 31),
      -(2 ** 31) - 1,
      Number.MIN_SAFE_INTEGER,
      -0,
      0.5,
      1e300,
      -1e-300,
      Infinity,
      -Infinity,
    ];
    assert.deepEqual(roundTrip(numbers), numbers);
    assert.ok(Object.is((roundTrip([-0]) as number[])[0], -0));
    assert.ok(Number.isNaN(roundTrip(NaN)));
  });

  test('strings of every length class and of every plane come back equal', () => {
    const strings = [
      '',
      'a'.repeat(31),
      'b'.repeat(32),
      'c'.repeat(255),
      'd'.repeat(256),
      'e'.repeat(65536),
      'é☃😀',
      '\u0000nul',
      '\ud800 lone surrogate',
    ];
    const back = roundTrip(strings) as string[];
    assert.deepEqual(back.slice(0, 8), strings.slice(0, 8));
    assert.equal(back[8], '\ufffd lone surrogate');
  });

  test('bytes come back as a Uint8Array of their own, not a view of the buffer read', () => {
    const encoded = encodeMsgpack({ raw: Buffer.from([0xff, 0x00, 0x01]) });
    const { raw } = decodeMsgpack(encoded) as { raw: Uint8Array };
    assert.deepEqual([...raw], [0xff, 0x00, 0x01]);
    assert.equal(raw.buffer.byteLength, 3);
  });

  test('a map of 70,000 keys and an array of 70,000 items come back whole', () => {
    const map = Object.fromEntries(Array.from({ length: 70_000 }, (_, i) => [`k${i}`, i]));
    const array = Array.from({ length: 70_000 }, (_, i) => i);
    assert.deepEqual(roundTrip({ map, array }), { map, array });
  });

  test('undefined, functions and symbols follow JSON: left out of objects, nil in arrays; toJSON is used', () => {
    const when = new Date(Date.UTC(2026, 0, 2));
    assert.deepEqual(roundTrip({ a: undefined, f: () => 1, s: Symbol('x'), list: [undefined, () => 1], when }), {
      list: [null, null],
      when: '2026-01-02T00:00:00.000Z',
    });
  });

  test('integers past 32 bits are written as the same 64-bit integers their BigInts are', () => {
    for (const number of [
      2 ** 32,
      2 ** 32 + 1,
      1_798_000_000_123,
      2 ** 52 + 3,
      Number.MAX_SAFE_INTEGER,
      -(2 ** 31) - 1,
      -(2 ** 32) - 5,
      -1_798_000_000_123,
      Number.MIN_SAFE_INTEGER,
    ]) {
      assert.deepEqual([...encodeMsgpack(number)], [...encodeMsgpack(BigInt(number))], String(number));
    }
  });

  test('BigInts within 64 bits are integers; past 64 bits they are refused', () => {
    assert.deepEqual(roundTrip([2n ** 40n, -(2n ** 40n)]), [2 ** 40, -(2 ** 40)]);
    assert.throws(() => encodeMsgpack({ n: 2n ** 70n }), MsgpackError);
  });

  test('each result is its own buffer: encoding again (or inside a toJSON) changes none before it', () => {
    const first = encodeMsgpack({ first: 'x'.repeat(100) });
    const nested = { toJSON: () => ({ inner: [...encodeMsgpack({ during: true })] }) };
    const second = encodeMsgpack({ second: nested, big: 'y'.repeat(100_000) });
    assert.deepEqual(decodeMsgpack(first), { first: 'x'.repeat(100) });
    assert.deepEqual(decodeMsgpack(second), {
      second: { inner: [...encodeMsgpack({ during: true })] },
      big: 'y'.repeat(100_000),
    });
  });

  test('the bytes written are the ones earlier versions wrote, byte for byte', () => {
    const value = {
      id: 'c1',
      é: 'é☃',
      long: 'x'.repeat(33),
      n: [0, 127, 128, 255, 256, 65536, 2 ** 32, -1, -32, -33, -(2 ** 31) - 1, 0.5, -0],
      b: [true, false, null],
      raw: new Uint8Array([1, 2]),
      big: 2n ** 63n,
    };
    assert.equal(
      encodeMsgpack(value).toString('hex'),
      '87a26964a26331a2c3a9a5c3a9e29883a46c6f6e67d921' +
        '78'.repeat(33) +
        'a16e9d007fcc80ccffcd0100ce00010000cf0000000100000000ffe0d2ffffffdfd3ffffffff7fffffff' +
        'cb3fe0000000000000cb8000000000000000a16293c3c2c0a3726177c4020102a3626967cf8000000000000000',
    );
  });
});

describe('keys stay data', () => {
  test('a __proto__ key decodes as an own key and changes no prototype', () => {
    const args = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as unknown;
    const back = roundTrip(args) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(back), Object.prototype);
    assert.deepEqual(Object.keys(back), ['__proto__', 'constructor']);
    assert.deepEqual(JSON.stringify(back), JSON.stringify(args));
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  test('integer, float, boolean and byte keys (as the worker encodes Lua tables) become their text', () => {
    // { [5] = 1, [2.5] = 2, [true] = 3, ["\xff"] = 4 } as snapshot-encoder.ts writes it.
    const bytes = Buffer.from([
      0x84, 0x05, 0x01, 0xcb, 0x40, 0x04, 0, 0, 0, 0, 0, 0, 0x02, 0xc3, 0x03, 0xc4, 0x01, 0xff, 0x04,
    ]);
    assert.deepEqual(decodeMsgpack(bytes), { '5': 1, '2.5': 2, true: 3, '\\xff': 4 });
  });
});

describe('what earlier versions wrote (msgpackr 2.1.4)', () => {
  test('a session log msgpackr wrote reads whole, __proto__ arguments included', () => {
    const stateDir = tempDir();
    mkdirSync(join(stateDir, 'sessions'));
    copyFileSync(join(FIXTURES, 'msgpackr-era', 'session.log'), join(stateDir, 'sessions', 'msgpackr.log'));
    const { records, warnings } = readSession(stateDir, 'msgpackr');
    assert.deepEqual(warnings.length, 1);
    assert.match(warnings[0]!, /call a1b2c3-3 \(misbehave\): snapshot of 70\.0 MiB not recorded/);
    assert.deepEqual(
      records.map((record) => [record.callId, record.tool, record.status, record.durationMs, record.finishedAt]),
      [
        ['a1b2c3-1', 'count_lines', 'ok', 40, 1764500000040],
        ['a1b2c3-2', 'sh', 'ok', 120, 1764500001000],
        ['a1b2c3-3', 'misbehave', 'invalid_args', 0, 1764500002000],
      ],
    );
    assert.deepEqual(records[0]!.args, {
      path: 'src',
      deep: { list: [1, -2, 3.5, null, true, 'é☃'], big: 2 ** 40, neg: -(2 ** 40) },
    });
    assert.deepEqual(decodeMsgpack(records[0]!.snapshot!), { files: 3, lines: 12 });
    assert.equal(records[1]!.spillPath, '/state/spill/s/sh-a1b2c3-2.txt');
    assert.equal(JSON.stringify(records[2]!.args), '{"__proto__":{"polluted":true},"constructor":"x"}');
  });

  test("msgpackr's undefined (fixext 1, type 0) decodes as undefined", () => {
    assert.deepEqual(decodeMsgpack(Buffer.from([0x91, 0xd4, 0x00, 0x00])), [undefined]);
  });
});

describe('hostile bytes', () => {
  const cases: [string, number[], RegExp][] = [
    ['a byte msgpack does not define', [0xc1], /byte 0xc1 at offset 0/],
    ['an extension other than undefined', [0xd4, 0x01, 0x00], /extension/],
    ['a value cut short', [0x91, 0xcd, 0x01], /end in the middle of a value/],
    ['bytes after the value', [0x01, 0x02], /1 bytes follow the value/],
    ['a map claiming four billion entries', [0xdf, 0xff, 0xff, 0xff, 0xff], /does not fit/],
    ['an array claiming four billion entries', [0xdd, 0xff, 0xff, 0xff, 0xff], /does not fit/],
    ['a string longer than the bytes', [0xdb, 0x7f, 0xff, 0xff, 0xff], /end in the middle of a value/],
    ['a map key that is an array', [0x81, 0x90, 0x01], /a map key of type array/],
  ];
  for (const [name, bytes, message] of cases) {
    test(`${name} is a MsgpackError saying so`, () => {
      assert.throws(
        () => decodeMsgpack(Buffer.from(bytes)),
        (error: unknown) => error instanceof MsgpackError && message.test(error.message),
      );
    });
  }

  test(`nesting past ${MAX_MSGPACK_DEPTH} levels is refused both ways, not a stack overflow`, () => {
    const bytes = Buffer.alloc(100_000, 0x91);
    assert.throws(() => decodeMsgpack(bytes), /nested deeper than 1000 levels/);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    assert.throws(() => encodeMsgpack(deep), /nested deeper than 1000 levels/);
  });
});

test('scanning a map gives every field its kind, decodes only the fields asked for, and skips the rest whole', () => {
  const value = {
    small: 5,
    negative: -3,
    wide: 2 ** 40,
    float: 1.5,
    text: 'x'.repeat(300),
    long: 'y'.repeat(70_000),
    bytes: new Uint8Array(300),
    list: [1, [2, { deep: [null, true, false] }], 'z'.repeat(40)],
    nested: { a: { b: { c: 'd' } } },
    nothing: null,
    yes: true,
    last: 'end',
  };
  const fields = scanMsgpackMap(encodeMsgpack(value), new Set(['small', 'last', 'nested']));
  assert.ok(fields);
  assert.deepEqual(Object.fromEntries([...fields].map(([key, field]) => [key, field.kind])), {
    small: 'integer',
    negative: 'integer',
    wide: 'integer',
    float: 'float',
    text: 'string',
    long: 'string',
    bytes: 'binary',
    list: 'array',
    nested: 'map',
    nothing: 'nil',
    yes: 'boolean',
    last: 'string',
  });
  assert.equal(fields.get('small')?.value, 5);
  assert.equal(fields.get('last')?.value, 'end');
  assert.deepEqual(fields.get('nested')?.value, { a: { b: { c: 'd' } } });
  assert.equal(fields.get('long')?.value, undefined);
  assert.equal(scanMsgpackMap(encodeMsgpack([1, 2]), new Set()), undefined);
  const cut = encodeMsgpack(value);
  assert.throws(() => scanMsgpackMap(cut.subarray(0, cut.length - 2), new Set()), MsgpackError);
  assert.throws(
    () => scanMsgpackMap(Buffer.from([0x81, 0xa1, 0x61, 0xdd, 0xff, 0xff, 0xff, 0xff]), new Set()),
    /does not fit/,
  );
});

test('decoding within a limit refuses a value of more values than allowed, a map or array counting as eight', () => {
  const maps = encodeMsgpack(Array.from({ length: 100 }, () => ({})));
  assert.equal((decodeMsgpack(maps, 808) as unknown[]).length, 100);
  assert.throws(() => decodeMsgpack(maps, 807), /more than 807 values, a map or array counting as 8/);
  const numbers = encodeMsgpack(Array.from({ length: 100 }, () => 1));
  assert.equal((decodeMsgpack(numbers, 108) as unknown[]).length, 100);
  assert.throws(() => decodeMsgpack(numbers, 107), /more than 107 values/);
  assert.throws(() => scanMsgpackMap(encodeMsgpack({ a: [[], []] }), new Set(['a']), 20), /more than 20 values/);
});
