// Checking tool definitions and arguments, without workers: the empty-table rule, each kind of
// bad definition as a located diagnostic, and argument problems as `args.path: message`.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { argumentProblems } from '../core/arguments.js';
import { schemaFromLua } from '../core/schema-shape.js';
import type { RawToolDefinition } from '../shared/protocol.js';
import { compileParameters, createSchemaCompiler } from '../core/schema-compiler.js';
import { checkDefinitions } from '../core/tool-definitions.js';
import { rawDefinition } from './raw-definition.js';

const raw = (fields: Partial<RawToolDefinition>): RawToolDefinition => rawDefinition(fields);

describe('empty Lua tables in schemas', () => {
  test('become [] for list keywords and {} for schemas and maps of schemas', () => {
    const fromLua = {
      type: 'object',
      properties: [],
      required: [],
      additionalProperties: [],
      allOf: [[]],
      items: [],
      dependencies: { a: [], b: ['c'] },
    };
    assert.deepEqual(schemaFromLua(fromLua), {
      type: 'object',
      properties: {},
      required: [],
      items: {},
      additionalProperties: {},
      allOf: [{}],
      dependencies: { a: {}, b: ['c'] },
    });
  });

  test('come out in a canonical key order whatever order Lua iterated them in', () => {
    const schema = schemaFromLua({
      required: ['b'],
      properties: { b: { description: 'B', type: 'string' }, a: [] },
      type: 'object',
    });
    assert.equal(
      JSON.stringify(schema),
      '{"type":"object","properties":{"a":{},"b":{"type":"string","description":"B"}},"required":["b"]}',
    );
  });
});

describe('tool definitions', () => {
  const check = (definitions: RawToolDefinition[]) => checkDefinitions(definitions, createSchemaCompiler());

  test('a good definition loads, with a default parameters schema when none is given', () => {
    const { tools, diagnostics } = check([raw({ timeout: 2.5 })]);
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(tools[0]!.definition.parameters, { type: 'object', properties: {} });
    assert.equal(tools[0]!.definition.timeoutMs, 2500);
  });

  test('each bad field is one error diagnostic at the registry:add line, and only that tool is dropped', () => {
    const cases: [Partial<RawToolDefinition>, RegExp][] = [
      [{ name: 'has space' }, /`name` must match .* \(got "has space"\)/],
      [{ name: 'x'.repeat(65) }, /`name` must match/],
      [{ description: '' }, /`description` must be a non-empty string/],
      [{ runType: 'nil' }, /`run` must be a function \(got nil\)/],
      [{ renderType: 'string' }, /`render` must be a function \(got string\)/],
      [{ timeout: -1 }, /`timeout` must be a positive number of seconds/],
      [{ parameters: { type: 'array' } }, /parameters\.type must be 'object'/],
      [{ parameters: { type: 'object', properties: { n: { type: 'integr' } } } }, /parameters\.properties\.n\.type: /],
      [{ parameters: { type: 'object', frobnicate: true } }, /parameters: unknown keyword `frobnicate`$/],
      [
        { parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' } },
        /parameters\["\$schema"\]: moonpool checks schemas as JSON Schema draft-07: leave `\$schema` out.*\(got "https:\/\/json-schema/,
      ],
      [
        { parameters: { type: 'object', properties: { tags: { type: 'array', items: 'string' } } } },
        /parameters\.properties\.tags\.items: must be object or boolean.*\(got "string"\): write \{ type = 'string' \}$/,
      ],
      [{ parameters: { $schema: 7, type: 'object' } }, /parameters\["\$schema"\]: .*draft-07.*\(got number 7\)$/],
      [{ conversionError: 'parameters.properties.cb is a function' }, /parameters\.properties\.cb is a function/],
    ];
    for (const [fields, message] of cases) {
      const { tools, diagnostics } = check([raw({ ...fields, line: 7 }), raw({ name: 'fine', line: 20 })]);
      assert.deepEqual(
        tools.map((tool) => tool.definition.name),
        ['fine'],
        JSON.stringify(fields),
      );
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      assert.equal(diagnostics[0]!.severity, 'error');
      assert.equal(diagnostics[0]!.line, 7);
      assert.match(diagnostics[0]!.message, message);
    }
  });

  test('the second of two tools with one name is dropped with a diagnostic naming the first', () => {
    const { tools, diagnostics } = check([raw({ line: 3 }), raw({ line: 9 })]);
    assert.equal(tools.length, 1);
    assert.equal(tools[0]!.definition.line, 3);
    assert.match(diagnostics[0]!.message, /duplicate tool name 'tool' \(first defined at \/config\/init\.lua:3\)/);
  });

  test('an unknown field unlike any known one is a warning and the tool still loads', () => {
    const { tools, diagnostics } = check([raw({ fieldNames: ['description', 'name', 'notes', 'run'] })]);
    assert.equal(tools.length, 1);
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.message]),
      [['warning', "tool 'tool': unknown field `notes` is ignored"]],
    );
  });

  test('a schema that names draft-07 as its $schema loads', () => {
    for (const $schema of ['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema']) {
      const { tools, diagnostics } = check([raw({ parameters: { $schema, type: 'object', properties: {} } })]);
      assert.deepEqual(diagnostics, []);
      assert.equal(tools.length, 1);
    }
  });

  test('an unknown field close to a field the definition lacks is an error that names the field meant', () => {
    const { tools, diagnostics } = check([raw({ fieldNames: ['description', 'name', 'paramters', 'run'] })]);
    assert.equal(tools.length, 0);
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.message]),
      [['error', "tool 'tool': unknown field `paramters` (did you mean `parameters`?)"]],
    );
  });

  test('a misspelt field is said once, as the near miss, not again as the field missing', () => {
    const { tools, diagnostics } = check([
      raw({ fieldNames: ['descripton', 'name', 'runn'], description: undefined, runType: 'nil' }),
    ]);
    assert.equal(tools.length, 0);
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.message]),
      [
        ['error', "tool 'tool': unknown field `descripton` (did you mean `description`?)"],
        ['error', "tool 'tool': unknown field `runn` (did you mean `run`?)"],
      ],
    );
  });

  test('an unknown field close to a field the definition also sets stays a warning', () => {
    const { tools, diagnostics } = check([
      raw({ fieldNames: ['description', 'name', 'render', 'renderer', 'run'], renderType: 'function' }),
    ]);
    assert.equal(tools.length, 1);
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.message]),
      [['warning', "tool 'tool': unknown field `renderer` is ignored (`render` is set too)"]],
    );
  });

  test('a schema without type object still has its other mistakes reported in the same run', () => {
    const { tools, diagnostics } = check([
      raw({ parameters: { Type: 'object', properties: { s: { type: 'string', maxlength: 3 } } } }),
    ]);
    assert.equal(tools.length, 0);
    const messages = diagnostics.map((diagnostic) => diagnostic.message);
    assert.ok(
      messages.some((message) => /parameters\.type must be 'object' \(got nil\)/.test(message)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((message) => /unknown keyword `Type` \(did you mean `type`\?\)/.test(message)),
      messages.join('\n'),
    );
    assert.ok(
      messages.some((message) =>
        /properties\.s: unknown keyword `maxlength` \(did you mean `maxLength`\?\)/.test(message),
      ),
      messages.join('\n'),
    );
  });
});

describe('arguments', () => {
  const compiled = compileParameters(createSchemaCompiler(), {
    type: 'object',
    properties: {
      city: { type: 'string' },
      units: { type: 'string', enum: ['metric', 'imperial'] },
      days: { type: 'array', items: { type: 'integer' } },
    },
    required: ['city'],
    additionalProperties: false,
  });
  assert.ok('validate' in compiled);
  const { validate } = compiled;

  test('valid arguments have no problems', () => {
    assert.deepEqual(argumentProblems(validate, { city: 'Paris', days: [1, 2] }), []);
  });

  test('each problem names its path: args.city, args.units, args.days[1], args.extra', () => {
    assert.deepEqual(argumentProblems(validate, { units: 'kelvin', days: [1, 'two'], extra: true }).sort(), [
      'args.city: is required',
      'args.days[1]: must be integer',
      'args.extra: is not an accepted argument',
      'args.units: must be one of "metric", "imperial"',
    ]);
  });

  test('a missing argument named like one that was given is asked about: a misspelling, most likely', () => {
    assert.deepEqual(argumentProblems(validate, { cty: 'Paris' }).sort(), [
      'args.city: is required (was "cty" meant as "city"?)',
      'args.cty: is not an accepted argument',
    ]);
    assert.deepEqual(argumentProblems(validate, { town: 'Paris' }).sort(), [
      'args.city: is required',
      'args.town: is not an accepted argument',
    ]);
  });

  test('arguments holding a typed array (no JSON does) are refused before their elements are listed', () => {
    assert.deepEqual(argumentProblems(validate, { city: 'Paris', days: new Uint8Array(100_000) }), [
      'args: holds a Uint8Array, which is not JSON data',
    ]);
  });

  test('arguments that are not an object, or are nested absurdly deep, are refused before validation', () => {
    assert.deepEqual(argumentProblems(validate, [1]), ['args: must be an object (got an array)']);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 10_000; i++) deep = { deep };
    assert.deepEqual(argumentProblems(validate, { city: 'x', deep }), ['args: nested deeper than 64 levels']);
  });

  test('__proto__ and constructor keys are plain data: no pollution, no crash', () => {
    const args = JSON.parse(
      '{"city":"x","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    ) as unknown;
    assert.deepEqual(argumentProblems(validate, args).sort(), [
      'args.__proto__: is not an accepted argument',
      'args.constructor: is not an accepted argument',
    ]);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
