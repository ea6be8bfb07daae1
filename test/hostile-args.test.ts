// Hostile arguments against patterns, formats, enums and unique items: every check ends within
// its work budget on the host's thread, and a healthy tool keeps answering beside them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkDefinitions } from '../core/tool-definitions.js';
import {
  compileParameters,
  createSchemaCompiler,
  MAX_SCHEMA_KEYWORDS,
  MAX_TOTAL_SCHEMA_KEYWORDS,
} from '../core/schema-compiler.js';
import { argumentProblems } from '../core/arguments.js';
import type { RawToolDefinition } from '../shared/protocol.js';
import { startHost } from './helpers.js';

function definition(name: string, parameters: unknown): RawToolDefinition {
  return {
    name,
    description: 'A tool.',
    parameters,
    timeout: null,
    runType: 'function',
    renderType: 'nil',
    availableType: 'nil',
    module: '/c/init.lua',
    file: '/c/init.lua',
    line: 1,
    fieldNames: [],
  };
}

function compiled(schema: unknown) {
  const result = compileParameters(createSchemaCompiler(), { type: 'object', ...(schema as object) });
  assert.ok('validate' in result, JSON.stringify(result));
  return result.validate;
}

describe('hostile arguments', async () => {
  const host = await startHost('hostile-args');

  test('a 4 M-digit string against \\d+-\\d+ is refused within the budget while a healthy tool keeps answering', async () => {
    const hostile = Array.from({ length: 4 }, (_, i) => host.call('ranges', { range: `${i}`.repeat(4_000_000) }));
    const healthy = Array.from({ length: 20 }, (_, n) => host.call('healthy', { n }));
    for (const result of await Promise.all(hostile)) {
      assert.equal(result.status, 'invalid_args');
      assert.match(
        result.content,
        /args: matching a 4000000-character string against \/\\d\+-\\d\+\/ .* would take more work than one call's check may spend/,
      );
    }
    assert.deepEqual(
      (await Promise.all(healthy)).map((result) => result.content),
      Array.from({ length: 20 }, (_, n) => `ok ${n}`),
    );
  });

  test('strings within the budget are matched in linear time, a nested quantifier included', async () => {
    const digits = await host.call('ranges', { range: '1'.repeat(20_000) });
    assert.equal(digits.status, 'invalid_args');
    assert.match(digits.content, /args\.range: must match pattern "\\d\+-\\d\+"/);
    // `^(a+)+$` backtracks for longer than the universe has existed on a backtracking engine.
    const slug = await host.call('ranges', { slug: `${'a'.repeat(20_000)}!` });
    assert.match(slug.content, /args\.slug: must match pattern/);
    assert.equal((await host.call('ranges', { range: '12-34', slug: 'aaa' })).content, 'range 12-34');
  });

  test('formats are bounded too: a 1 M-character "email" is refused at once, a real one passes', async () => {
    const long = await host.call('ranges', { email: `${'a.'.repeat(500_000)}@x.org` });
    assert.equal(long.status, 'invalid_args');
    assert.match(long.content, /args\.email: must match format "email"/);
    assert.equal((await host.call('ranges', { email: 'someone@example.org' })).status, 'ok');
  });

  test('a 20,000-value enum loads and its invalid_args message names 10 values and counts the rest', async () => {
    const result = await host.call('picks', { one: 'nope' });
    assert.equal(result.status, 'invalid_args');
    assert.match(result.content, /args\.one: must be one of "v1", "v2", .*"v10", … and 19,990 more values/);
    assert.ok(result.content.length < 400, `${result.content.length} characters`);
    assert.equal((await host.call('picks', { one: 'v20000' })).content, 'picked v20000');
  });

  test('a long array of enum values is checked by hashing, and a failure on every item lists 20 problems and counts the rest', async () => {
    const distinct = Array.from({ length: 1_999 }, (_, i) => `v${i + 1}`);
    assert.equal((await host.call('picks', { many: distinct })).status, 'ok');
    assert.match(
      (await host.call('picks', { many: [...distinct, 'v1'] })).content,
      /items ## 0 and 1999 are identical/,
    );
    const wrong = await host.call('picks', { many: Array.from({ length: 1_000 }, (_, i) => `wrong-${i}`) });
    assert.equal(wrong.status, 'invalid_args');
    assert.match(wrong.content, /… and 980 more problems$/);
    assert.equal(wrong.content.split('\n').length, 22);
  });

  test('arguments too large to list every problem within 2,000 steps are told their first problem', async () => {
    const wrong = await host.call('picks', { many: Array.from({ length: 3_000 }, (_, i) => `wrong-${i}`) });
    assert.deepEqual(wrong.content.split('\n').slice(1), [
      'args.many[0]: must be one of "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", … and 1,990 more values',
      'args: only the first problem is listed; checking for the others would take too long',
    ]);
  });

  test('a schema that recurses through two oneOf branches cannot take exponential time, and a healthy tool keeps answering', async () => {
    const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)]);
    const hostile = [40, 60, 63].map((depth) => host.call('trees', { tree: nested(depth) }));
    const healthy = Array.from({ length: 10 }, (_, n) => host.call('healthy', { n }));
    for (const result of await Promise.all(hostile)) {
      assert.equal(result.status, 'invalid_args');
      assert.match(
        result.content,
        /applying the schema to these arguments would take more steps than one call's check may take \(50000\)/,
      );
    }
    assert.deepEqual(
      (await Promise.all(healthy)).map((result) => result.content),
      Array.from({ length: 10 }, (_, n) => `ok ${n}`),
    );
    assert.equal((await host.call('trees', { tree: ['a', 'b', 'c', 'd', 'e', 'f'] })).content, 'tree');
  });

  test('a long array under items is bounded by the steps too: 50,000 items pass, 60,000 are refused', async () => {
    const tags = (count: number) => ({ many: Array.from({ length: count }, (_, i) => `v${(i % 2_000) + 1}`) });
    assert.match(
      (await host.call('picks', tags(60_000))).content,
      /would take more steps than one call's check may take/,
    );
    assert.match((await host.call('picks', tags(40_000))).content, /must NOT have duplicate items/);
  });

  test('duplicates are found by hashing: objects equal in any key order, the first pair named', async () => {
    const things = [...Array.from({ length: 5_000 }, (_, i) => ({ a: i, b: [i] })), { b: [7], a: 7 }];
    const result = await host.call('picks', { things });
    assert.match(result.content, /args\.things: must NOT have duplicate items \(items ## 7 and 5000 are identical\)/);
    assert.equal((await host.call('picks', { things: [{ a: 1 }, { a: 2 }, [1], '1', 1, null, true] })).status, 'ok');
  });

  test('too many items to compare within the budget are refused, not compared', async () => {
    const result = await host.call('picks', { things: Array.from({ length: 1_000_000 }, (_, i) => i) });
    assert.match(result.content, /looking for duplicates among 1000000 items would take more work/);
  });

  test('an unknown tool name close to a tool says which one was meant', async () => {
    const result = await host.call('pick', {});
    assert.equal(result.status, 'unknown_tool');
    assert.match(result.content, /^unknown tool 'pick' \(did you mean 'picks'\?\); the tools are: /);
    assert.match((await host.call('zzzzzz', {})).content, /^unknown tool 'zzzzzz'; the tools are: /);
  });

  test('an unknown tool name is clipped and the tools listed are counted past 50', async () => {
    const result = await host.call('x'.repeat(1_000_000), {});
    assert.equal(result.status, 'unknown_tool');
    assert.match(result.content, /^unknown tool 'x{100}… \(999900 more characters\)'; the tools are: /);
    assert.ok(result.content.length < 300);
  });
});

describe('hostile schemas', () => {
  test('backreferences and lookaround are refused when the tool is defined, naming the field', () => {
    for (const [pattern, where] of [
      ['(a)\\1', 'parameters.properties.s.pattern'],
      ['^(?=a)a$', 'parameters.properties.s.pattern'],
      ['(?<!x)y', 'parameters.properties.s.pattern'],
    ] as const) {
      const result = compileParameters(createSchemaCompiler(), {
        type: 'object',
        properties: { s: { type: 'string', pattern } },
      });
      assert.ok('problems' in result);
      assert.match(
        result.problems[0]!.message,
        new RegExp(`^${where.replaceAll('.', '\\.')}: the pattern cannot run in linear time`),
      );
    }
    const keyed = compileParameters(createSchemaCompiler(), {
      type: 'object',
      patternProperties: { '(x)\\1': {} },
      propertyNames: { pattern: '(?!a)' },
    });
    assert.ok('problems' in keyed);
    assert.deepEqual(
      keyed.problems.map((problem) => problem.message.split(':')[0]),
      ['parameters.patternProperties["(x)\\\\1"]', 'parameters.propertyNames.pattern'],
    );
  });

  test('over-long patterns and repeat counts that compile too large are refused', () => {
    const long = compileParameters(createSchemaCompiler(), {
      type: 'object',
      properties: { s: { type: 'string', pattern: 'a'.repeat(1001) } },
    });
    assert.ok('problems' in long && /longer than 1000 characters/.test(long.problems[0]!.message));
    const big = compileParameters(createSchemaCompiler(), {
      type: 'object',
      properties: {
        s: {
          type: 'string',
          pattern: '[a-z]{1,1000}[0-9]{1,1000}[A-Z]{1,1000}[a-f]{1,1000}[x-z]{1,1000}[0-5]{1,1000}',
        },
      },
    });
    assert.ok(
      'problems' in big && /compiles to \d+ instructions; the limit is 5000/.test(big.problems[0]!.message),
      JSON.stringify(big),
    );
  });

  test('a pattern key inside enum, const, default or examples is data, not a pattern', () => {
    compiled({
      properties: {
        s: { enum: [{ pattern: '(a)\\1' }], default: { pattern: '(?=x)' }, examples: [{ pattern: '\\1' }] },
      },
    });
  });

  test('keywords are bounded per tool and per config', () => {
    const properties = (count: number, prefix = 'p') =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, { type: 'string' }]));
    const one = compileParameters(createSchemaCompiler(), {
      type: 'object',
      properties: properties(MAX_SCHEMA_KEYWORDS),
    });
    assert.ok('problems' in one && /has \d+ keywords; the limit is 1000/.test(one.problems[0]!.message));
    const tools = Array.from({ length: 6 }, (_, i) =>
      definition(`tool${i}`, { type: 'object', properties: properties(450, `t${i}p`) }),
    );
    const { tools: loaded, diagnostics } = checkDefinitions(tools, createSchemaCompiler());
    assert.equal(loaded.length, Math.floor(MAX_TOTAL_SCHEMA_KEYWORDS / 902));
    assert.match(
      diagnostics[0]!.message,
      /tool 'tool5': the config's schemas have more than 5000 keywords together; this tool's parameters is not compiled/,
    );
    const same = Array.from({ length: 20 }, (_, i) =>
      definition(`same${i}`, { type: 'object', properties: properties(450) }),
    );
    assert.equal(
      checkDefinitions(same, createSchemaCompiler()).tools.length,
      20,
      'a schema compiled once is reused without being charged again',
    );
  });

  test('a tool refused for its own size costs the others nothing of the config total', () => {
    const properties = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string' }]));
    const { tools, diagnostics } = checkDefinitions(
      [
        definition('huge', { type: 'object', properties: properties(3000) }),
        definition('ok1', { type: 'object', properties: { a: { type: 'string' } } }),
      ],
      createSchemaCompiler(),
    );
    assert.deepEqual(
      tools.map((tool) => tool.definition.name),
      ['ok1'],
    );
    assert.equal(diagnostics.length, 1);
    assert.match(diagnostics[0]!.message, /tool 'huge': parameters: the schema has \d+ keywords; the limit is 1000/);
  });

  test('keys matched against patternProperties and propertyNames are charged like values', () => {
    const keyed = compiled({
      patternProperties: { '^k\\d+$': { type: 'number' } },
      propertyNames: { pattern: '^[a-z0-9]+$' },
      additionalProperties: false,
    });
    const keys = (count: number, length: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${String(i).padStart(length, '0')}`, i]));
    assert.deepEqual(argumentProblems(keyed, keys(100, 8)), []);
    assert.match(
      argumentProblems(keyed, keys(40_000, 30))[0]!,
      /^args: matching a 31-character string against .* would take more work than one call's check may spend/,
    );
    assert.ok(argumentProblems(keyed, { 'k-1': 1 }).includes('args["k-1"]: is not an accepted argument'));
    // A problem names a long key by its start and length: a megabyte key is not sent back whole.
    const closed = compiled({ properties: { a: {} }, additionalProperties: false });
    const [long] = argumentProblems(closed, { [`x${'k'.repeat(1_000_000)}`]: 1 });
    assert.ok(long!.length < 200, `${long!.length} characters`);
    assert.match(long!, /^args\["xk+… \(1,000,001 characters\)"\]: /);
  });

  test('the enum and uniqueItems of a tool schema behave as JSON Schema says', () => {
    const validate = compiled({
      properties: {
        e: { enum: [1, 'one', null, { a: [1, { b: 2 }] }, [1, 2]] },
        u: { type: 'array', uniqueItems: true },
      },
    });
    for (const good of [1, 'one', null, { a: [1, { b: 2 }] }, [1, 2]])
      assert.deepEqual(argumentProblems(validate, { e: good }), []);
    for (const bad of ['1', 2, { a: [1, { b: 3 }] }, [2, 1], { a: [1, { b: 2 }], c: 1 }, true])
      assert.equal(argumentProblems(validate, { e: bad }).length, 1, JSON.stringify(bad));
    assert.deepEqual(argumentProblems(validate, { u: [1, '1', [1], { 1: 1 }] }), []);
    assert.deepEqual(argumentProblems(validate, { u: [{ x: 1, y: 2 }, 3, { y: 2, x: 1 }] }), [
      'args.u: must NOT have duplicate items (items ## 0 and 2 are identical)',
    ]);
  });

  test('an enum of 20,000 values passes the meta-schema check and compiles', () => {
    const values = Array.from({ length: 20_000 }, (_, i) => i);
    const validate = compiled({ properties: { n: { enum: values } } });
    assert.deepEqual(argumentProblems(validate, { n: 19_999 }), []);
    const duplicate = compileParameters(createSchemaCompiler(), {
      type: 'object',
      properties: { n: { enum: [...values, 5] } },
    });
    assert.ok('problems' in duplicate && /must NOT have duplicate items/.test(duplicate.problems[0]!.message));
  });
});

test('refused arguments are recorded in the session log only while small', async () => {
  const host = await startHost('hostile-args');
  const small = await host.call('ranges', { range: 'x'.repeat(100) });
  const large = await host.call('ranges', { range: 'x'.repeat(200_000) });
  assert.deepEqual([small.status, large.status], ['invalid_args', 'invalid_args']);
  const { records } = host.resume();
  const byId = new Map(records.map((record) => [record.callId, record]));
  assert.deepEqual(byId.get(small.callId)!.args, { range: 'x'.repeat(100) });
  assert.deepEqual(byId.get(large.callId)!.args, { $notRecorded: 'args: larger than 65536 characters' });
});

test('a format that backtracks (url) is checked only on strings of at most 2,048 characters, and charged as if it backtracked', () => {
  const validate = compileParameters(createSchemaCompiler(), {
    type: 'object',
    properties: {
      u: { type: 'string', format: 'url' },
      many: { type: 'array', items: { type: 'string', format: 'url' } },
    },
  });
  assert.ok('validate' in validate);
  const backtracking = (colons: number) => (): void =>
    assert.deepEqual(argumentProblems(validate.validate, { u: `http://a${':'.repeat(colons)}\n` }), [
      'args.u: must match format "url"',
    ]);
  // Sixty times the characters of a string the format still checks costs no more than it: the
  // longer one is refused by its length, never matched (matching it took 22 s).
  const ratio = shortestMs(backtracking(120_000)) / Math.max(shortestMs(backtracking(2_000)), 1);
  assert.ok(ratio < 10, `a 120,000-character url took ${ratio.toFixed(1)} times as long as one of 2,000`);
  const long = `https://example.com/${'a'.repeat(2000)}`;
  assert.deepEqual(argumentProblems(validate.validate, { u: long }), []);
  assert.match(
    argumentProblems(validate.validate, { many: Array<string>(50).fill(long) })[0]!,
    /would take more work than one call's check may spend/,
  );
});

/** The shortest time of a few runs of `work` (ms): the least disturbed by a loaded machine. */
function shortestMs(work: () => void, runs = 5): number {
  let shortest = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    work();
    shortest = Math.min(shortest, performance.now() - started);
  }
  return shortest;
}
