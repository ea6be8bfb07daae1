// Differential tests of what a tool sees of its own stack: tracebacks it makes, `debug.getinfo`
// levels, `error` levels, and the message and traceback of an error result. Each snippet is a tool
// whose `run` is the snippet file's chunk itself, and runs natively with `lua5.4 FILE`: both must
// show the same frames, down to the nameless C frame (`[C]: in ?`) that calls the main chunk, which
// an error result leaves out. Error objects a model reads are described where native Lua would
// show less (see docs/writing-tools.md, "How calls fail").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NATIVE_LUA, nativeChunkName } from './differential.js';
import { startHost, tempDir } from './helpers.js';

const SNIPPETS = {
  nested_traceback: `
local function middle() return debug.traceback('m') end
local t = {}
function t.f() local x = middle(); return x end
print(t.f())
return 'done'
`,
  traceback_levels: `
print(debug.traceback('level 1', 1))
print(debug.traceback('level 2', 2))
print(debug.traceback('level 3', 3))
print(debug.traceback())
return 'done'
`,
  xpcall_traceback: `
local function inner() error('boom') end
print(select(2, xpcall(function() inner() end, debug.traceback)))
print(select(2, xpcall(inner, debug.traceback, 'arg')))
return 'done'
`,
  coroutine_traceback: `
local co = coroutine.create(function() local function deeper() coroutine.yield() end deeper() end)
coroutine.resume(co)
print(debug.traceback(co))
print(debug.traceback(co, 'with a message'))
print(debug.traceback(co, 'from level 1', 1))
local failed = coroutine.create(function() error('inside') end)
print(coroutine.resume(failed))
print(debug.traceback(failed))
return 'done'
`,
  getinfo_levels: `
local function walk()
  for level = 1, 20 do
    local info = debug.getinfo(level, 'Sln')
    if not info then return end
    print(level, info.what, info.short_src, info.currentline, info.name)
  end
end
walk()
return 'done'
`,
  error_levels: `
print(pcall(error, 'level 2 of pcall', 2))
print(pcall(function() error('level 3 in a function', 3) end))
print(pcall(function() error('level 4 in a function', 4) end))
print(pcall(function() error('level 5 in a function', 5) end))
return 'done'
`,
  error_level_2: `
error('past the main chunk', 2)
`,
  error_level_3: `
error('further past the main chunk', 3)
`,
  runtime_error: `
local function deep(t) return t.field.missing end
local function middle() return (deep({})) end
middle()
`,
  error_nil: `
error()
`,
  error_boolean: `
error(true)
`,
  error_number: `
error(42)
`,
  error_function: `
error(print)
`,
  error_empty_table: `
error({})
`,
  library_argument_error: `
local function open() local p = io.popen({ 'ls' }); return p end
open()
`,
  library_method_error: `
local file = io.open('init.lua')
local function read() local text = file:read('*x'); return text end
read()
`,
  library_open_error: `
local function each() local lines = io.lines('/nonexistent/file'); return lines end
each()
`,
};
type Snippet = keyof typeof SNIPPETS;

const dir = realpathSync(tempDir('moonpool-tracebacks-'));
const paths = Object.fromEntries(
  Object.entries(SNIPPETS).map(([name, source]) => {
    const path = join(dir, `${name}.lua`);
    writeFileSync(path, source);
    return [name, path];
  }),
) as Record<Snippet, string>;
// Each snippet's chunk is its tool's \`run\`: called with nothing of the config's below it.
const INIT = `agent.on('discover_tools', function(registry)
${Object.entries(paths)
  .map(
    ([name, path]) =>
      `  registry:add { name = '${name}', description = 'x', run = assert(loadfile(${JSON.stringify(path)})) }`,
  )
  .join('\n')}
  registry:add {
    name = 'shows_a_function',
    description = 'Shows a state that cannot cross.',
    run = function(args, ctx) ctx:show({ f = print }) end,
  }
  registry:add {
    name = 'raises',
    description = 'Raises the error object named by kind.',
    parameters = { type = 'object', properties = { kind = { type = 'string' } }, required = { 'kind' } },
    run = function(args)
      local objects = {
        named = function() return setmetatable({}, { __name = 'MyErr' }) end,
        named_fields = function() return setmetatable({ code = 1 }, { __name = 'MyErr' }) end,
        name_not_string = function() return setmetatable({}, { __name = 42 }) end,
        tostring_number = function() return setmetatable({}, { __tostring = function() return 42 end }) end,
        tostring_table = function() return setmetatable({ code = 2 }, { __tostring = function() return {} end }) end,
        tostring_raises = function() return setmetatable({}, { __tostring = function() error('inner') end }) end,
        hidden_metatable = function() return setmetatable({}, { __metatable = false, __tostring = function() return 'behind __metatable' end }) end,
      }
      error(objects[args.kind]())
    end,
  }
end)
`;
writeFileSync(join(dir, 'init.lua'), INIT);
const INNER_LINE = INIT.split('\n').findIndex((line) => line.includes("error('inner')")) + 1;
const host = await startHost(dir, { cwd: dir });

function lines(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** `lines` without the bottom frame of each traceback when it is the host's `[C]: in ?`. */
function withoutHostFrames(lines: string[]): string[] {
  return lines.filter((line, i) => !(line === '\t[C]: in ?' && !(lines[i + 1] ?? '').startsWith('\t')));
}

/** Moonpool's text with the snippet's path as native Lua cuts a long chunk name. */
function asNative(text: string, name: Snippet): string {
  return text.split(paths[name]).join(nativeChunkName(paths[name]));
}

function runNatively(name: Snippet): { status: number | null; stdout: string[]; stderr: string } {
  const run = spawnSync(NATIVE_LUA, [paths[name]], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  if (run.error) throw run.error;
  return { status: run.status, stdout: lines(run.stdout), stderr: run.stderr };
}

/** What the snippet printed in moonpool, and its call's result. */
async function runInMoonpool(name: Snippet): Promise<{ printed: string[]; status: string; content: string }> {
  const log: string[] = [];
  const result = await host.call(name, {}, { onLog: (text) => log.push(asNative(text, name)) });
  return { printed: log, status: result.status, content: asNative(result.content, name) };
}

/** The snippet prints the same lines both ways. */
async function printsAsNative(name: Snippet): Promise<void> {
  const native = runNatively(name);
  assert.equal(native.status, 0, native.stderr);
  const moonpool = await runInMoonpool(name);
  assert.equal(moonpool.status, 'ok', moonpool.content);
  assert.deepEqual(moonpool.printed, native.stdout);
}

/** The snippet fails both ways, and the error result is what `lua5.4` reports, less its name and the host's frame. */
async function failsAsNative(name: Snippet): Promise<void> {
  const native = runNatively(name);
  assert.equal(native.status, 1, native.stderr);
  const reported = lines(native.stderr.replace(/^lua5\.4: /, ''));
  const moonpool = await runInMoonpool(name);
  assert.equal(moonpool.status, 'error');
  assert.deepEqual(lines(moonpool.content), withoutHostFrames(reported));
}

describe('tracebacks a tool makes', () => {
  test('debug.traceback shows the tool’s frames and none of moonpool’s', () => printsAsNative('nested_traceback'));
  test('debug.traceback from a level at or past the tool’s run', () => printsAsNative('traceback_levels'));
  test('xpcall with debug.traceback as the handler', () => printsAsNative('xpcall_traceback'));
  test('debug.traceback of a suspended and of a failed coroutine', () => printsAsNative('coroutine_traceback'));
});

describe('stack levels', () => {
  test('debug.getinfo reaches the tool’s frames, then a nameless C function', async () => {
    const native = runNatively('getinfo_levels');
    const moonpool = await runInMoonpool('getinfo_levels');
    // The last level is the host, a C function.
    assert.match(native.stdout.at(-1)!, /^\d+\tC\t\[C\]\t-1\tnil$/);
    assert.deepEqual(moonpool.printed, native.stdout);
  });
  test('error levels inside pcall', () => printsAsNative('error_levels'));
  test('an error level past the main chunk adds no position', async () => {
    await failsAsNative('error_level_2');
    await failsAsNative('error_level_3');
  });
});

describe('error results', () => {
  test('a runtime error names the file and line of each frame', () => failsAsNative('runtime_error'));
  test('nil, a boolean or a function raised is named by its type, a number is its text', async () => {
    await failsAsNative('error_nil');
    await failsAsNative('error_boolean');
    await failsAsNative('error_function');
    await failsAsNative('error_number');
  });
  test('an empty table raised says so as native Lua does', () => failsAsNative('error_empty_table'));
  test('an error a library function raises shows that function as a C frame, as natively', async () => {
    await failsAsNative('library_argument_error');
    await failsAsNative('library_method_error');
    await failsAsNative('library_open_error');
  });
  test('an error ctx:show raises shows ctx:show as a C frame, not the `error` it raised with', async () => {
    const result = await host.call('shows_a_function', {});
    assert.deepEqual(lines(result.content).slice(1, 3), ['stack traceback:', "\t[C]: in method 'show'"]);
  });
});

describe('error objects', () => {
  const firstLine = async (kind: string): Promise<string> => {
    const result = await host.call('raises', { kind });
    assert.equal(result.status, 'error', result.content);
    return result.content.split('\n')[0]!;
  };
  test('a table’s __name names its type, as in argument errors', async () => {
    assert.equal(await firstLine('named'), '(error object is a MyErr value)');
    assert.equal(await firstLine('named_fields'), '(error object is a MyErr: { code = 1 })');
    assert.equal(await firstLine('name_not_string'), '(error object is a table value)');
  });
  test('__tostring gives the message as tostring does, and a failing one is said to fail', async () => {
    assert.equal(await firstLine('tostring_number'), '42');
    assert.equal(await firstLine('hidden_metatable'), 'behind __metatable');
    assert.equal(
      await firstLine('tostring_table'),
      "(error object is a table: { code = 2 }; its __tostring failed: '__tostring' must return a string)",
    );
    const raising = await firstLine('tostring_raises');
    assert.equal(
      raising,
      `(error object is a table value; its __tostring failed: ${join(dir, 'init.lua')}:${INNER_LINE}: inner)`,
    );
  });
  test('the traceback of an error object is the tool’s frames only', async () => {
    const result = await host.call('raises', { kind: 'tostring_table' });
    const traceback = lines(result.content).slice(1);
    assert.deepEqual(traceback.slice(0, 2), ['stack traceback:', "\t[C]: in function 'error'"]);
    assert.match(traceback[2]!, /init\.lua:\d+: in function </);
    assert.equal(traceback.length, 3, result.content);
  });
});
