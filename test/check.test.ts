// `moonpool check` says everything at once: every schema mistake of a tool in one run, each with
// the value written, what is allowed and the line of its field; near misses of known names; and
// hostile definitions (hundreds of mistakes, megabyte keys, keys that are not strings, depth).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DefinitionLines, lineOf } from '../core/definition-lines.js';
import { luaTokens } from '../core/lua-tokens.js';
import { closestName } from '../core/name-suggestion.js';
import { compileParameters, createSchemaCompiler } from '../core/schema-compiler.js';
import { checkDefinitions } from '../core/tool-definitions.js';
import { CLI, FIXTURES, startHost, tempDir } from './helpers.js';

const MISTAKES = join(FIXTURES, 'schema-mistakes');
const HOSTILE = join(FIXTURES, 'schema-hostile');

function problemsOf(schema: Record<string, unknown>): string[] {
  const compiled = compileParameters(createSchemaCompiler(), schema);
  assert.ok('problems' in compiled, 'the schema compiled');
  return compiled.problems.map((problem) => problem.message);
}

function moonpool(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const stateDir = tempDir();
  const run = spawnSync(process.execPath, [CLI, ...args, '--state-dir', stateDir], {
    encoding: 'utf8',
    cwd: FIXTURES,
    timeout: 30_000,
    env: { ...process.env, MOONPOOL_CONFIG: '' },
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('schema problems', () => {
  test('three mistakes in one schema are three problems, each with the value and the name meant', () => {
    const problems = problemsOf({
      type: 'object',
      properties: { word: { type: 'strng' }, times: { type: 'integer', minimun: 1 } },
      requried: ['word'],
    });
    assert.deepEqual(problems.sort(), [
      'parameters.properties.times: unknown keyword `minimun` (did you mean `minimum`?)',
      'parameters.properties.word.type: "strng" is not a JSON Schema type (did you mean "string"?); the types are string, number, integer, boolean, object, array, null',
      'parameters: unknown keyword `requried` (did you mean `required`?)',
    ]);
  });

  test('a value the meta-schema refuses names its path (lists from 1, as in Lua), the value and what it must be', () => {
    const problems = problemsOf({
      type: 'object',
      properties: { n: { type: 'number', minimum: '5' } },
      required: ['n', 7],
      additionalProperties: 'no',
    });
    assert.deepEqual(problems.sort(), [
      'parameters.additionalProperties: must be object or boolean (got "no")',
      'parameters.properties.n.minimum: must be number (got "5")',
      'parameters.required[2]: must be string (got number 7)',
    ]);
  });

  test('a required name no property has, and a default of the wrong type, are problems', () => {
    assert.deepEqual(
      problemsOf({
        type: 'object',
        properties: {
          path: { type: 'string' },
          n: { type: 'integer', default: 'three' },
          e: { type: 'array', default: [] },
        },
        required: ['path', 'pth'],
      }).sort(),
      [
        'parameters.properties.n.default: "three" is not of the schema\'s type (integer)',
        'parameters.required[2]: "pth" is required but is not in properties (did you mean "path"?); every call would fail',
      ],
    );
    // Names other properties may match are not in `properties`, rightly.
    assert.ok(
      'validate' in
        compileParameters(createSchemaCompiler(), {
          type: 'object',
          patternProperties: { '^x': {} },
          required: ['xy'],
        }),
    );
    assert.ok(
      'validate' in
        compileParameters(createSchemaCompiler(), {
          type: 'object',
          properties: { n: { type: 'number', default: 2 } },
        }),
    );
  });

  test('a keyword of one type in a schema without type says which type to add', () => {
    assert.deepEqual(problemsOf({ type: 'object', properties: { m: { minimum: 1 } } }), [
      "parameters.properties.m: `minimum` applies only to a number, and the schema has no `type`: add type = 'number'",
    ]);
  });

  test('a bad name inside a list of types is reported once, at its place in the list', () => {
    assert.deepEqual(problemsOf({ type: 'object', properties: { n: { type: ['nul', 'string'] } } }), [
      'parameters.properties.n.type[1]: "nul" is not a JSON Schema type (did you mean "null"?); the types are string, number, integer, boolean, object, array, null',
    ]);
  });

  test('keys with line breaks or escape sequences are shown escaped: a diagnostic stays one line and draws nothing', () => {
    const problems = problemsOf({ type: 'object', properties: { 'a\nb': { type: 'x' } }, ['c\n\u001b[2J\u007f']: 1 });
    assert.deepEqual(problems.sort(), [
      'parameters.properties["a\\nb"].type: "x" is not a JSON Schema type; the types are string, number, integer, boolean, object, array, null',
      'parameters: unknown keyword `c\\n\\u001b[2J\\u007f`',
    ]);
  });

  test('a keyword unlike any known one gets no suggestion', () => {
    assert.deepEqual(problemsOf({ type: 'object', frobnicate: true }), ['parameters: unknown keyword `frobnicate`']);
  });

  test('every problem strict mode has is listed, not only the first it throws', () => {
    const problems = problemsOf({ type: 'object', properties: { a: { then: {} }, c: { else: {} } } });
    assert.deepEqual(problems, [
      'parameters: "then" without "if" is ignored',
      'parameters: "else" without "if" is ignored',
    ]);
  });

  test('thousands of mistakes report 20 and count the rest', () => {
    const compiled = compileParameters(createSchemaCompiler(), {
      type: 'object',
      required: Array.from({ length: 5000 }, (_, i) => i),
    });
    assert.ok('problems' in compiled);
    assert.equal(compiled.problems.length, 20);
    assert.equal(compiled.total, 5000);
  });

  test('a keyword of 200,000 characters is shown cut, with its length, and costs no comparison', () => {
    const started = process.cpuUsage();
    const [problem] = problemsOf({ type: 'object', ['k'.repeat(200_000)]: true });
    assert.equal(problem, `parameters: unknown keyword \`${'k'.repeat(60)}… (200,000 characters)\``);
    assert.ok(process.cpuUsage(started).user < 1_000_000, 'well under a second of CPU');
  });
});

describe('definitions', () => {
  test('a megabyte name with a line break is named once, cut and escaped, and labels none of its other problems', () => {
    const definition = {
      name: `a\n${'x'.repeat(1_000_000)}`,
      description: '',
      parameters: null,
      timeout: null,
      runType: 'function',
      renderType: 'nil',
      availableType: 'nil',
      module: '/c/init.lua',
      file: '/c/init.lua',
      line: 1,
      fieldNames: [],
    };
    const { diagnostics } = checkDefinitions([definition], createSchemaCompiler());
    assert.deepEqual(
      diagnostics.map((diagnostic) => diagnostic.message),
      [
        `registry:add: \`name\` must match ^[a-zA-Z0-9_-]{1,64}$ (got "a\\n${'x'.repeat(38)}…")`,
        'registry:add: `description` must be a non-empty string (got "")',
      ],
    );
    assert.ok(diagnostics.every((diagnostic) => diagnostic.tool === undefined));
  });
});

describe('name suggestions', () => {
  test('a swap, a missing or an extra letter, or a shortening of four letters or more, is a near miss; a different word is not', () => {
    assert.equal(closestName('requried', ['required', 'properties']), 'required');
    assert.equal(closestName('paramters', ['name', 'parameters']), 'parameters');
    assert.equal(closestName('Minimum', ['minimum', 'maximum']), 'minimum');
    assert.equal(
      closestName('notes', ['name', 'description', 'parameters', 'run', 'render', 'available', 'timeout']),
      undefined,
    );
    assert.equal(closestName('x'.repeat(1_000_000), ['x']), undefined);
    assert.equal(closestName('params', ['name', 'parameters']), 'parameters');
    assert.equal(closestName('par', ['name', 'parameters']), undefined);
  });
});

describe('field lines', () => {
  const source = [
    "local t = registry:add { name = 'a', -- a comment with { braces",
    '  parameters = {',
    "    type = 'object', --[[ a long",
    '    comment ]] properties = {',
    '      ["two words"] = { type = "string", description = [[',
    'a long string]] },',
    "      n = { type = 'number', enum = { 1,",
    '        2 } },',
    '    },',
    '  },',
    '  run = function(args, ctx) local a, b = 1, 2 if a then return "}" end end,',
    '  timeout = 5,',
    '}',
    "registry:add { name = 'b', run = f } registry:add({ name = 'c', timeout = 'x' })",
  ].join('\n');
  const lines = new DefinitionLines(() => source);

  test('each field, nested or not, is found on the line it is written on', () => {
    const fields = lines.fieldsAt('init.lua', 1, 'a');
    assert.equal(lineOf(fields, ['parameters', 'properties', 'two words', 'description'], 1), 5);
    assert.equal(lineOf(fields, ['parameters', 'properties', 'n', 'enum', 1], 1), 8);
    assert.equal(lineOf(fields, ['parameters', 'properties'], 1), 4);
    assert.equal(lineOf(fields, ['timeout'], 1), 12);
  });

  test('a path that leaves what is written literally stops at its last written field', () => {
    assert.equal(lineOf(lines.fieldsAt('init.lua', 1, 'a'), ['parameters', 'properties', 'n', 'minimum'], 1), 7);
    assert.equal(lineOf(lines.fieldsAt('init.lua', 1, 'a'), ['paramters'], 1), 1);
  });

  test('two definitions on one line are told apart by their written names', () => {
    assert.equal(lines.fieldsAt('init.lua', 14, 'c')?.get('timeout')?.text, 'x');
    assert.equal(lines.fieldsAt('init.lua', 14, 'b')?.has('timeout'), false);
    assert.equal(lines.fieldsAt('init.lua', 14, 'z'), undefined);
  });

  test('line breaks count as Lua counts them, inside strings and comments too', () => {
    const tokens = luaTokens("a\r\nb\n\rc\rd 'e\\\nf' [==[\n]==] g");
    assert.deepEqual(
      tokens.map((token) => [token.text, token.line]),
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
        ['d', 4],
        ['e\nf', 4],
        ['', 5],
        ['g', 6],
      ],
    );
  });
});

describe('moonpool check on real configs', () => {
  test('reports every mistake of the fixture in one run, each at its field line, and exits 1', () => {
    const run = moonpool(['check', '--config', MISTAKES]);
    assert.equal(run.code, 1, run.stderr);
    const file = join('schema-mistakes', 'init.lua');
    assert.deepEqual(run.stdout.split('\n'), [
      `${file}:10: tool 'repeat_word': parameters.properties.word.type: "strng" is not a JSON Schema type (did you mean "string"?); the types are string, number, integer, boolean, object, array, null`,
      `${file}:13: tool 'repeat_word': parameters.properties.times: unknown keyword \`minimun\` (did you mean \`minimum\`?)`,
      `${file}:16: tool 'repeat_word': parameters: unknown keyword \`requried\` (did you mean \`required\`?)`,
      `${file}:24: tool 'word_count': unknown field \`paramters\` (did you mean \`parameters\`?)`,
      `${file}:32: note: tool 'fine' declares no permissions, so it may touch every file, command and variable (set \`permissions\` in registry:add)`,
      `${file}:36: warning: tool 'fine': unknown field \`notes\` is ignored`,
      '1 tool loaded; 4 errors, 1 warning, 1 note',
      '',
    ]);
  });

  test('--strict fails on a warning alone; without it, warnings pass', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'init.lua'),
      "agent.on('discover_tools', function(r)\n  r:add { name = 'x', description = 'X.', permissions = {}, run = function() return 'x' end,\n    notes = 'mine' }\nend)\n",
    );
    const plain = moonpool(['check', '--config', dir]);
    assert.equal(plain.code, 0, plain.stdout);
    assert.match(plain.stdout, /init\.lua:3: warning: tool 'x': unknown field `notes` is ignored/);
    assert.equal(moonpool(['check', '--strict', '--config', dir]).code, 1);
  });

  test('hostile definitions: each is refused in a bounded line, at its own line, and the host keeps serving', async () => {
    const host = await startHost(HOSTILE);
    const byTool = new Map<string, string[]>();
    for (const diagnostic of host.diagnostics())
      byTool.set(diagnostic.tool ?? '', [
        ...(byTool.get(diagnostic.tool ?? '') ?? []),
        `${diagnostic.line}: ${diagnostic.message}`,
      ]);
    assert.equal(byTool.get('many_mistakes')?.length, 21);
    assert.equal(byTool.get('many_mistakes')?.at(-1), "19: tool 'many_mistakes': parameters: … and 280 more problems");
    assert.deepEqual(byTool.get('long_field'), [
      `30: tool 'long_field': unknown field \`${'f'.repeat(100)}… (1000000 bytes)\` is ignored`,
    ]);
    assert.deepEqual(byTool.get('boolean_key'), [
      "40: tool 'boolean_key': parameters.properties has a key of type boolean: only string and integer keys can cross",
    ]);
    assert.deepEqual(byTool.get('integer_key'), [
      "47: tool 'integer_key': parameters: unknown keyword `1`",
      "48: tool 'integer_key': unknown field `[1]` is ignored",
    ]);
    assert.deepEqual(byTool.get('odd_fields'), [
      "52: tool 'odd_fields': unknown field `\\n\\u001b[2J` is ignored",
      "52: tool 'odd_fields': unknown field `[1.5]` is ignored",
      "52: tool 'odd_fields': unknown field `[a table]` is ignored",
      "52: tool 'odd_fields': unknown field `[true]` is ignored",
      "56: tool 'odd_fields': parameters.properties has a key of type number: only string and integer keys can cross",
    ]);
    assert.deepEqual(byTool.get('megabyte_property'), [
      "63: tool 'megabyte_property': parameters: the schema is 1000053 characters; the limit is 262144",
    ]);
    assert.deepEqual(byTool.get('too_deep'), [
      "70: tool 'too_deep': parameters: the schema is nested deeper than 32 levels",
    ]);
    assert.match(
      byTool.get('deep_mistake')?.[0] ?? '',
      /^79: tool 'deep_mistake': parameters(\.properties\.x){10}: unknown keyword `minimun`/,
    );
    assert.ok(host.diagnostics().every((diagnostic) => diagnostic.message.length < 400));
    assert.deepEqual(
      host.tools().map((tool) => tool.name),
      ['long_field'],
    );
    assert.equal((await host.call('long_field', {})).content, 'fine');
  });

  test('a reload reports what check reports, and a config whose every tool has errors leaves the last good one serving', async () => {
    const dir = tempDir();
    const good =
      "agent.on('discover_tools', function(r)\n  r:add { name = 'repeat_word', description = 'Repeat.', run = function() return 'ok' end }\nend)\n";
    writeFileSync(join(dir, 'init.lua'), good);
    const host = await startHost(dir);
    assert.deepEqual(
      host.tools().map((tool) => tool.name),
      ['repeat_word'],
    );
    const broken = readFileSync(join(MISTAKES, 'init.lua'), 'utf8').replace(
      /registry:add \{\n {4}name = 'fine'[\s\S]*?\n {2}\}\n/,
      '',
    );
    writeFileSync(join(dir, 'init.lua'), broken);
    const reload = await host.reload();
    assert.equal(reload.ok, false);
    assert.deepEqual(
      reload.diagnostics.map((diagnostic) => diagnostic.line),
      [10, 13, 16, 24],
    );
    assert.deepEqual(
      host.tools().map((tool) => tool.name),
      ['repeat_word'],
    );
    assert.equal((await host.call('repeat_word', {})).content, 'ok');
  });

  test('a module required from lua/ has its problems placed in that file', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'lua'));
    copyFileSync(join(MISTAKES, 'init.lua'), join(dir, 'lua', 'mistakes.lua'));
    writeFileSync(join(dir, 'init.lua'), "require('mistakes')\n");
    const host = await startHost(dir);
    const located = host
      .diagnostics()
      .map((diagnostic) => `${diagnostic.file?.endsWith(join('lua', 'mistakes.lua'))}:${diagnostic.line}`);
    assert.deepEqual(located, ['true:10', 'true:13', 'true:16', 'true:24', 'true:36']);
  });

  test('a call to a tool whose definition has errors says it was not loaded, and its first error at file:line', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'lua'));
    copyFileSync(join(MISTAKES, 'init.lua'), join(dir, 'lua', 'mistakes.lua'));
    writeFileSync(join(dir, 'init.lua'), "require('mistakes')\n");
    const host = await startHost(dir);
    const three = await host.call('repeat_word', {});
    assert.equal(three.status, 'unknown_tool');
    assert.equal(
      three.content,
      `unknown tool 'repeat_word': its definition has 3 errors, so it was not loaded (the first: ${join('lua', 'mistakes.lua')}:10: parameters.properties.word.type: "strng" is not a JSON Schema type (did you mean "string"?); the types are string, number, integer, boolean, object, array, null)`,
    );
    const one = await host.call('word_count', {});
    assert.equal(one.status, 'unknown_tool');
    assert.equal(
      one.content,
      "unknown tool 'word_count': its definition has an error, so it was not loaded (lua/mistakes.lua:24: unknown field `paramters` (did you mean `parameters`?))",
    );
    // A name no definition carries is answered as before.
    assert.match(
      (await host.call('nothing_like_it', {})).content,
      /^unknown tool 'nothing_like_it'; the tools are: fine$/,
    );
  });
});

describe('directories moonpool cannot make', () => {
  test('fails at once with exit 2 and the reason: /proc, a file, a FIFO path', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'file'), '');
    spawnSync('mkfifo', [join(dir, 'fifo')]);
    for (const [target, reason] of [
      ['/proc', /ENOENT: no such file or directory, mkdir '\/proc\/lua'/],
      [join(dir, 'file'), /ENOTDIR: not a directory/],
      [join(dir, 'fifo'), /ENOTDIR: not a directory/],
    ] as const) {
      const run = spawnSync(process.execPath, [CLI, 'new', 'x', '--dir', target], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      assert.equal(run.status, 2, `${target}: ${run.stderr}`);
      assert.match(run.stderr, new RegExp(`^moonpool: cannot write the new tool in .*: ${reason.source}`));
    }
  });

  test('an init.lua that is a FIFO is refused before anything is written', () => {
    const dir = tempDir();
    spawnSync('mkfifo', [join(dir, 'init.lua')]);
    const run = spawnSync(process.execPath, [CLI, 'new', 'x', '--dir', dir], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /init\.lua is not a regular file/);
    assert.deepEqual(readdirSync(dir), ['init.lua']);
  });

  test('a state directory under /proc fails call at once with exit 2, naming it', () => {
    const run = spawnSync(
      process.execPath,
      [CLI, 'call', 'fine', '--config', MISTAKES, '--state-dir', '/proc/moonpool-state'],
      { encoding: 'utf8', timeout: 20_000 },
    );
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /the state directory \/proc\/moonpool-state cannot be used \(ENOENT\)/);
  });
});

describe('check finds what would fail every call', () => {
  test('each at its line: the required name meant, the default, the type to add and the types meant', () => {
    const run = moonpool(['check', '--strict', '--config', join(FIXTURES, 'schema-meaning')]);
    assert.equal(run.code, 1, run.stderr);
    const source = readFileSync(join(FIXTURES, 'schema-meaning', 'init.lua'), 'utf8').split('\n');
    const at = (text: string): string =>
      `schema-meaning/init.lua:${source.findIndex((line) => line.includes(text)) + 1}`;
    assert.deepEqual(run.stdout.trimEnd().split('\n'), [
      `${at("default = 'three'")}: tool 'read_file': parameters.properties.lines.default: "three" is not of the schema's type (integer)`,
      `${at('minimum = 1')}: tool 'read_file': parameters.properties.limit: \`minimum\` applies only to a number, and the schema has no \`type\`: add type = 'number'`,
      `${at("required = { 'pth' }")}: tool 'read_file': parameters.required[1]: "pth" is required but is not in properties (did you mean "path"?); every call would fail`,
      ...[
        '"str" is not a JSON Schema type (did you mean "string"?)',
        '"int" is not a JSON Schema type (did you mean "integer"?)',
        '"list" is not a JSON Schema type (did you mean "array"?)',
        '"dict" is not a JSON Schema type (did you mean "object"?)',
      ].map(
        (said, i) =>
          `${at("a = { type = 'str' }")}: tool 'other_names': parameters.properties.${'abcd'[i]}.type: ${said}; the types are string, number, integer, boolean, object, array, null`,
      ),
      'the config did not load; 7 errors, 0 warnings',
    ]);
  });

  test('a Lua library written for a name (`type = string`) is named as such, the same in every run', async () => {
    const file = join(tempDir(), 'init.lua');
    writeFileSync(
      file,
      [
        "agent.on('discover_tools', function(registry)",
        '  local function add(name, fields)',
        '    fields.name, fields.description, fields.permissions = name, name, {}',
        '    fields.run = function() return name end',
        '    registry:add(fields)',
        '  end',
        "  add('a', { parameters = { type = 'object', properties = { path = { type = string } } } })",
        "  add('b', { output_schema = { type = 'object', properties = { n = { type = table } } } })",
        "  add('c', { annotations = { title = os } })",
        'end)',
        '',
      ].join('\n'),
    );
    const host = await startHost(file);
    assert.deepEqual(
      host.diagnostics().map((diagnostic) => diagnostic.message),
      [
        "tool 'a': parameters.properties.path.type is Lua's `string` library (a table), not a type name: write type = 'string'",
        "tool 'b': output_schema.properties.n.type is Lua's `table` library (a table), not a type name: write type = 'object' (or 'array')",
        "tool 'c': annotations.title is Lua's `os` library (a table), which cannot cross: write 'os' if you meant the name",
      ],
    );
  });

  test("a missing comma: Lua's message and its likely cause", () => {
    const run = moonpool(['check', '--config', join(FIXTURES, 'missing-comma')]);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stdout.split('\n')[0],
      "missing-comma/init.lua:6: '}' expected (to close '{' at line 3) near 'run' (a comma missing after the value on line 5?)",
    );
  });

  test("a missing '}' gets no comma hint: the '}' missing, before the token Lua stopped at", () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'lua'));
    writeFileSync(
      join(dir, 'lua', 'bad.lua'),
      "agent.on('discover_tools', function(r)\n" +
        "  r:add{name='bad', description='ok', permissions={}, run=function() return 'bad' end\n" +
        'end)\n',
    );
    writeFileSync(join(dir, 'init.lua'), "require('bad')\n");
    writeFileSync(join(dir, 'same-line.lua'), "agent.on('discover_tools', function(r) r:add{name='x' end)\n");
    const module = join(dir, 'lua', 'bad.lua');
    assert.equal(
      moonpool(['check', '--config', dir]).stdout.split('\n')[1],
      `    ${module}:3: '}' expected (to close '{' at line 2) near 'end' (a '}' missing before 'end' on line 3?)`,
    );
    assert.equal(
      moonpool(['check', '--config', join(dir, 'same-line.lua')]).stdout.split('\n')[0],
      `${join(dir, 'same-line.lua')}:1: '}' expected near 'end' (a '}' missing before 'end' on line 1?)`,
    );
  });

  test('a missing comma in a module the config requires: the require named by its line, the same likely cause', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'lua'));
    copyFileSync(join(FIXTURES, 'missing-comma', 'init.lua'), join(dir, 'lua', 'greet.lua'));
    writeFileSync(join(dir, 'init.lua'), "-- the tools\nrequire('greet')\n");
    const run = moonpool(['check', '--config', dir]);
    assert.equal(run.code, 1, run.stderr);
    const module = join(dir, 'lua', 'greet.lua');
    assert.equal(
      run.stdout.split('\n').slice(0, 2).join('\n'),
      `${join(dir, 'init.lua')}:2: error loading module 'greet' from file '${module}':\n` +
        `    ${module}:6: '}' expected (to close '{' at line 3) near 'run' (a comma missing after the value on line 5?)`,
    );
  });
});
