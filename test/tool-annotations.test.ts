// `annotations` in registry:add: each hint checked like the other fields (an error naming the
// field and what came), unknown keys a warning, an empty table no annotations, and the tool's MCP
// entry carrying them as title and *Hint fields.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createSchemaCompiler } from '../core/schema-compiler.js';
import { checkDefinitions } from '../core/tool-definitions.js';
import { formatTool } from '../ui/tool-formats.js';
import { rawDefinition } from './raw-definition.js';

function check(annotations: unknown) {
  return checkDefinitions([rawDefinition({ annotations, line: 4 })], createSchemaCompiler());
}

describe('annotations in registry:add', () => {
  test('every hint loads and becomes the MCP title and *Hint fields', () => {
    const { tools, diagnostics } = check({
      title: 'A Tool',
      read_only: true,
      destructive: false,
      idempotent: true,
      open_world: false,
    });
    assert.deepEqual(diagnostics, []);
    const { name, description, parameters, module, annotations } = tools[0]!.definition;
    assert.deepEqual(annotations, {
      title: 'A Tool',
      readOnly: true,
      destructive: false,
      idempotent: true,
      openWorld: false,
    });
    const entry = formatTool(
      { name, description, parameters, module, ...(annotations ? { annotations } : {}), permissions: null },
      'mcp',
    );
    assert.equal(entry['title'], 'A Tool');
    assert.deepEqual(entry['annotations'], {
      title: 'A Tool',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  test('an empty table or no annotations at all leaves the MCP entry without them', () => {
    for (const annotations of [[], null, undefined]) {
      const { tools, diagnostics } = check(annotations);
      assert.deepEqual(diagnostics, []);
      assert.equal(tools[0]!.definition.annotations, undefined);
    }
  });

  test('a hint of the wrong type is an error naming it and what came, and the tool is dropped', () => {
    const cases: [unknown, string][] = [
      [{ read_only: 'yes' }, 'annotations.read_only must be true or false (got "yes")'],
      [{ destructive: 1 }, 'annotations.destructive must be true or false (got number 1)'],
      [{ open_world: {} }, 'annotations.open_world must be true or false (got a table)'],
      [{ title: '' }, 'annotations.title must be a non-empty string of at most 200 characters (got 0 characters)'],
      [
        { title: 'x'.repeat(201) },
        'annotations.title must be a non-empty string of at most 200 characters (got 201 characters)',
      ],
      [{ title: 5 }, 'annotations.title must be a non-empty string of at most 200 characters (got number 5)'],
      [true, '`annotations` must be a table with named fields (got boolean true)'],
      [['read_only'], '`annotations` must be a table with named fields (got a list)'],
    ];
    for (const [annotations, message] of cases) {
      const { tools, diagnostics } = check(annotations);
      assert.equal(tools.length, 0, JSON.stringify(annotations));
      assert.deepEqual(
        diagnostics.map((d) => [d.severity, d.line, d.message]),
        [['error', 4, `tool 'tool': ${message}`]],
      );
    }
  });

  test('an unknown annotation is a warning naming the field meant, or the known ones, and the tool still loads', () => {
    const { tools, diagnostics } = check({ readonly: true, readOnlyHint: true, colour: 'red', idempotent: true });
    assert.equal(tools.length, 1);
    assert.deepEqual(tools[0]!.definition.annotations, { idempotent: true });
    assert.deepEqual(
      diagnostics.map((d) => [d.severity, d.message]),
      [
        ['warning', "tool 'tool': unknown field `annotations.readonly` is ignored (did you mean `read_only`?)"],
        ['warning', "tool 'tool': unknown field `annotations.readOnlyHint` is ignored (did you mean `read_only`?)"],
        [
          'warning',
          "tool 'tool': unknown field `annotations.colour` is ignored (the fields are title, read_only, destructive, idempotent, open_world)",
        ],
      ],
    );
  });

  test('a key that names a property every object inherits is unknown too', () => {
    const { tools, diagnostics } = check({ constructor: true });
    assert.deepEqual(tools[0]!.definition.annotations, {});
    assert.deepEqual(
      diagnostics.map((d) => d.severity),
      ['warning'],
    );
  });

  test('a title with a control character (an escape, a line break) is an error naming where', () => {
    const { tools, diagnostics } = check({ title: 'Prog\u001b[31m' });
    assert.equal(tools.length, 0);
    assert.match(
      diagnostics[0]!.message,
      /annotations\.title must be one line of printable characters \(got a control character at position 5\)/,
    );
  });
});
