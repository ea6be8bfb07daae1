// Structured results: `output_schema` in registry:add checked like `parameters`, and `run`'s
// `structured` table on a real host: checked against the schema with paths, refused when it
// cannot be JSON (a function, a list, NaN, past the size limit), empty tables fitted to the schema.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { RawToolDefinition } from '../shared/protocol.js';
import { DefinitionLines } from '../core/definition-lines.js';
import { createSchemaCompiler } from '../core/schema-compiler.js';
import { checkDefinitions } from '../core/tool-definitions.js';
import { startHost } from './helpers.js';
import { rawDefinition } from './raw-definition.js';

const raw = (fields: Partial<RawToolDefinition>): RawToolDefinition => rawDefinition({ line: 7, ...fields });

describe('output_schema in registry:add', () => {
  const check = (fields: Partial<RawToolDefinition>) => checkDefinitions([raw(fields)], createSchemaCompiler());

  test('a good output schema loads, with empty Lua tables read by keyword', () => {
    const { tools, diagnostics } = check({
      outputSchema: { type: 'object', properties: { n: { type: 'integer' }, any: [] }, required: [] },
    });
    assert.deepEqual(diagnostics, []);
    assert.deepEqual(tools[0]!.definition.outputSchema, {
      type: 'object',
      properties: { any: {}, n: { type: 'integer' } },
      required: [],
    });
    assert.ok(tools[0]!.validateOutput);
  });

  test('each bad output schema is an error naming output_schema (at the registry:add line when no source is read), and the tool is dropped', () => {
    const cases: [unknown, RegExp][] = [
      ['object', /`output_schema` must be a JSON Schema table \(got "object"\)/],
      [{ type: 'array' }, /output_schema\.type must be 'object' \(got "array"\)/],
      [{ properties: {} }, /output_schema\.type must be 'object' \(got nil\)/],
      [{ type: 'object', properties: { n: { type: 'integr' } } }, /output_schema\.properties\.n\.type: /],
      [{ type: 'object', frobnicate: true }, /output_schema: unknown keyword `frobnicate`/],
      [
        { type: 'object', properties: { s: { type: 'string', pattern: '(a)\\1' } } },
        /output_schema\.properties\.s\.pattern: /,
      ],
    ];
    for (const [outputSchema, message] of cases) {
      const { tools, diagnostics } = check({ outputSchema });
      assert.equal(tools.length, 0, JSON.stringify(outputSchema));
      assert.equal(diagnostics.length, 1, JSON.stringify(diagnostics));
      assert.deepEqual(
        [diagnostics[0]!.severity, diagnostics[0]!.file, diagnostics[0]!.line],
        ['error', '/config/init.lua', 7],
      );
      assert.match(diagnostics[0]!.message, message);
      assert.match(diagnostics[0]!.message, /^tool 'tool': /);
    }
  });

  test("an output schema's problem is placed on the line of its own field", () => {
    const source = [
      "registry:add { name = 'tool',",
      '  output_schema = {',
      "    type = 'object',",
      "    properties = { n = { type = 'integr' } },",
      '  },',
      '}',
    ].join('\n');
    const outputSchema = { type: 'object', properties: { n: { type: 'integr' } } };
    const { diagnostics } = checkDefinitions(
      [raw({ line: 1, outputSchema })],
      createSchemaCompiler(),
      new DefinitionLines(() => source),
    );
    assert.deepEqual(
      diagnostics.map((diagnostic) => diagnostic.line),
      [4],
    );
    assert.match(
      diagnostics[0]!.message,
      /^tool 'tool': output_schema\.properties\.n\.type: "integr" is not a JSON Schema type/,
    );
  });

  test("output schemas count toward the config's total of schema keywords", () => {
    // Each tool's is its own: a schema the same as one compiled already is reused, not charged again.
    const wide = (tool: number) => ({
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 990 }, (_, i) => [`t${tool}p${i}`, {}])),
    });
    const definitions = Array.from({ length: 6 }, (_, i) => raw({ name: `t${i}`, outputSchema: wide(i) }));
    const { tools, diagnostics } = checkDefinitions(definitions, createSchemaCompiler());
    assert.equal(tools.length, 5);
    assert.match(
      diagnostics[0]?.message ?? '',
      /more than 5000 keywords together; this tool's output_schema is not compiled/,
    );
  });
});

describe('structured results on a host', () => {
  test('a structured result that matches its schema is passed on; one that does not names the path', async () => {
    const host = await startHost('mcp-results');
    const ok = await host.call('weather', { city: 'Oslo' });
    assert.equal(ok.status, 'ok');
    assert.deepEqual(ok.structured, { city: 'Oslo', celsius: 21.5, tags: [], extra: {} });
    const mismatch = await host.call('weather', { city: 'Atlantis' });
    assert.equal(mismatch.status, 'error');
    assert.equal(mismatch.structured, undefined);
    assert.match(
      mismatch.content,
      /^weather: run's structured result is not valid:\nstructured\.celsius: must be number$/,
    );
  });

  test('a structured value that cannot be JSON is an error result naming where it sits', async () => {
    const host = await startHost('structured');
    const cases: [string, RegExp][] = [
      [
        'with_function',
        /^with_function: run returned a `structured` that cannot be sent: structured\.cb is a function/,
      ],
      ['a_list', /structured: must be a table with named fields \(a JSON object\), not a list/],
      ['not_a_number', /structured\.ratio: is not a finite number \(JSON has no NaN or infinity\)/],
      ['a_string', /a_string: run returned a `structured` that is a string; it must be a table/],
      ['shared_huge', /structured too large \(more than 16 MiB encoded\)/],
      ['counted', /structured\.count: must be integer/],
      ['too_long', /structured: larger than 4194304 characters/],
      ['too_deep', /structured: nested deeper than 64 levels/],
    ];
    for (const [tool, message] of cases) {
      const result = await host.call(tool, {});
      assert.equal(result.status, 'error', tool);
      assert.match(result.content, message);
      assert.equal(result.structured, undefined);
    }
  });

  test('a __proto__ key in structured data stays data: no prototype is set, nothing is polluted', async () => {
    const host = await startHost('structured');
    const result = await host.call('proto_key', {});
    assert.equal(result.status, 'ok', result.content);
    assert.deepEqual(Object.keys(result.structured!).sort(), ['__proto__', 'n']);
    assert.equal(Object.getPrototypeOf(result.structured), Object.prototype);
    assert.deepEqual({ ...Object.getOwnPropertyDescriptor(result.structured, '__proto__')?.value }, { polluted: true });
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });

  test('without a schema any object passes, an empty top-level table is {}, and an error result carries no structured data', async () => {
    const host = await startHost('structured');
    assert.deepEqual((await host.call('free_form', {})).structured, { nested: { deeper: [] }, list: ['a', 'b'] });
    assert.deepEqual((await host.call('empty', {})).structured, {});
    const failed = await host.call('failed', {});
    assert.deepEqual([failed.status, failed.content, failed.structured], ['error', 'it failed', undefined]);
  });
});
