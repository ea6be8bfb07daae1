// io.popen and os.execute behave as in native Lua 5.4: each snippet runs in moonpool and with
// /usr/bin/lua5.4 through the same harness (test/fixtures/process/lua/snippet.lua), and the two
// outputs must be equal. Native Lua is required: without it these tests fail and say so.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { eventually, FIXTURES, startHost, tempDir } from './helpers.js';

const FIXTURE = join(FIXTURES, 'process');
const HARNESS = join(FIXTURE, 'lua', 'snippet.lua');
const NATIVE_LUA = 'lua5.4';

const SNIPPETS: Record<string, string> = {
  'os.execute and popen():close() report exit codes and signals': `
    for _, command in ipairs({ 'exit 0', 'exit 3', 'exit 128', 'exit 129', 'exit 255', 'kill -9 $$', 'kill -TERM $$' }) do
      out(command, os.execute(command))
      out(command, io.popen(command):close())
      out(command, io.popen(command, 'w'):close())
    end
    out(os.execute())`,

  'a popen reads every format and stops where native Lua stops': `
    local f = io.popen([[printf 'first\\nsecond\\n  42 -7.5e2 0x1F 0x 1e rest\\n\\nlast']])
    out(f:read('l', 'L'))
    out(f:read('n', 'n', 'n'))
    out(f:read('n'))
    out(f:read(3))
    out(f:read('l'))
    out(f:read(0))
    out(f:read('*l'))
    out(f:read('a'))
    out(f:read('a'), f:read('l'), f:read(0), f:read(5))
    out(f:close())`,

  'popen lines iterate with and without formats': `
    for a, b in io.popen('printf "1 2\\\\n3 4\\\\n"'):lines('n', 'n') do out(a, b) end
    local count, bytes = 0, 0
    for line in io.popen('seq 1 20000'):lines() do count, bytes = count + 1, bytes + #line end
    out(count, bytes)
    local f = io.popen('printf "x\\\\ny"')
    local next_line = f:lines('L')
    out(next_line(), next_line(), next_line())
    f:close()
    out(pcall(function() local line = next_line(); return line end))
    out(pcall(function() for _ in io.popen('echo 1'):lines('l', 'x') do end end))`,

  'a popen handle is a file that cannot seek, and a closed one is used no more': `
    local f = io.popen('echo hi')
    out(io.type(f), f:seek(), f:seek('set', 0), f:seek('end'))
    out(f:write('x'))
    out(f:read('l'))
    out(f:close())
    out(io.type(f), tostring(f))
    out(pcall(function() local line = f:read(); return line end))
    out(pcall(function() local ok = f:close(); return ok end))
    local w = io.popen('cat >/dev/null', 'w')
    out(w:read('l'))
    out(w:seek('cur'))
    out(w:setvbuf('line'), w:setvbuf('no'), w:setvbuf('full'))
    out(w:close())`,

  'a popen handle is a FILE* userdata like any file: same metatable, methods and io functions': `
    local f = io.popen('printf "one\\ntwo\\n"')
    out(type(f), io.type(f), getmetatable(f) == getmetatable(io.stdout), f.read == io.stdout.read)
    out(pcall(rawlen, f))
    out(tostring(f):match('^file %(') ~= nil)
    local previous = io.input()
    io.input(f)
    out(io.read('l'), io.lines(nil, 'l')())
    io.input(previous)
    out(f:seek('set', 1.0))
    out(pcall(function() local r = f:seek('set', 1.5); return r end))
    out(io.close(f), io.type(f))
    out(pcall(function() local r = f:read(); return r end))`,

  "a popen handle's finalizer called by hand closes it, as liolib's f_gc does": `
    local f = io.popen('echo hi')
    getmetatable(f).__gc(f)
    out(io.type(f), tostring(f))
    out(pcall(function() local r = f:read('l'); return r end))
    out(pcall(function() local r = f:close(); return r end))`,

  "a 'w' popen hands the command what was written, numbers as native Lua formats them": `
    local path = os.tmpname()
    local w = io.popen('cat > ' .. path, 'w')
    out(w:write('one\\n', 2, ' ', 2.5, ' ', 1.0, ' ', -0.0, ' ', 1e100, '\\n') == w)
    out(w:flush())
    out(w:close())
    local r = io.open(path)
    out(r:read('a'))
    r:close()
    os.remove(path)`,

  "a 'r' popen streams: a line is readable while the command still runs": `
    local flag = os.tmpname()
    os.remove(flag)
    local f = io.popen('echo ready; while [ ! -e ' .. flag .. ' ]; do sleep 0.01; done; echo done')
    out(f:read('l'))
    io.open(flag, 'w'):close()
    out(f:read('l'))
    out(f:close())
    os.remove(flag)`,

  // Node's pipes to a child are socket pairs: a command writing to a closed one gets ECONNRESET
  // (\`yes\` exits 1) where a pipe would give it SIGPIPE (exit 141); the failure itself is the same.
  'closing a popen before the command finished writing ends it as a failure': `
    local f = io.popen('yes')
    out(f:read('l'))
    local ok, kind = f:close()
    out(ok, kind)`,

  'a to-be-closed popen is closed at the end of its block': `
    local seen
    do
      local f <close> = io.popen('echo x')
      seen = f
      out(f:read('l'))
    end
    out(io.type(seen))`,

  // The shell's messages name the command's own lines (a comment, a here-doc, a syntax error).
  "the shell's messages number the command's lines as sh -c does": `
    local f = io.popen('exec 2>&1\\necho one\\nnosuchcmd_moonpool_a\\n# a comment\\ncat <<EOF\\nhere\\nEOF\\nnosuchcmd_moonpool_b')
    out(f:read('a'))
    out(f:close())
    out(io.popen('exec 2>&1; : "\\255"; nosuchcmd_moonpool_c'):read('a'))
    out(io.popen('exec 2>&1\\n\\nif'):read('a'))
    out(io.popen('# only a comment'):read('a'), io.popen(''):read('a'))
    out(os.execute('set -e; false; exit 4'))`,

  // Not in tail position (\`return io.popen(…)\`): a tail call to a Lua function leaves no caller line.
  'bad arguments raise the errors native Lua raises': `
    local f = io.popen('true')
    out(pcall(function() local r = io.popen('true', 'rw'); return r end))
    out(pcall(function() local r = io.popen({}); return r end))
    out(pcall(function() local r = os.execute({}); return r end))
    out(pcall(function() local r = f:read('x'); return r end))
    out(pcall(function() local r = f:seek('bad'); return r end))
    out(pcall(function() local r = io.popen('cat', 'w'):write({}); return r end))
    f:close()`,
};

function runNatively(code: string, cwd: string): string {
  const harness = `io.write(dofile(${JSON.stringify(HARNESS)})(io.read('a')))`;
  const run = spawnSync(NATIVE_LUA, ['-e', harness], { input: code, cwd, encoding: 'utf8' });
  if (run.error)
    throw new Error(
      `native Lua (${NATIVE_LUA}) is needed for the differential tests: ${run.error.message}; install it (apt-get install lua5.4)`,
    );
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

describe('io.popen and os.execute as in native Lua 5.4', async () => {
  const cwd = tempDir();
  const host = await startHost(FIXTURE, { cwd });

  for (const [behaviour, code] of Object.entries(SNIPPETS)) {
    test(behaviour, async () => {
      const expected = runNatively(code, cwd);
      const result = await host.call('snippet', { code });
      assert.equal(result.status, 'ok', result.content);
      assert.equal(result.content, expected);
    });
  }

  // Native Lua prints these on the terminal; moonpool sends them to the call's log.
  test("os.execute's and a 'w' popen's output, and every command's stderr, all reach the call's log before the result", async () => {
    const logs: string[] = [];
    const code = [
      "os.execute('echo one; echo two >&2; printf three')",
      "local w = io.popen('cat; echo five >&2', 'w')",
      "w:write('four\\n')",
      'w:close()',
      "local r = io.popen('echo six >&2; echo unread')",
      'r:close()',
      "capture('echo seven >&2')",
      "out('done')",
    ].join('\n');
    const result = await host.call('snippet', { code }, { onLog: (text) => logs.push(text) });
    assert.equal(result.content, 'done');
    assert.deepEqual(logs.join('\n').split('\n').sort(), ['five', 'four', 'one', 'seven', 'six', 'three', 'two']);
  });
});

describe('a popen read waits like capture', () => {
  test('a call waiting on a popen read gives up its CPU turn, and takes one again to go on', async () => {
    const host = await startHost(FIXTURE, { cpuSlots: 1 });
    const dir = tempDir();
    const [busy, ready] = [join(dir, 'busy'), join(dir, 'ready')];
    let waiting = false;
    const call = host.call('turn_then_read', { busy, ready }, { onTitle: (title) => (waiting = title === 'waiting') });
    assert.ok(await eventually(() => host.stats().cpu.running === 1), 'the call holds a turn while it shows progress');
    writeFileSync(busy, '');
    assert.ok(
      await eventually(() => waiting && host.stats().cpu.running === 0),
      'no turn is held while the call waits on the popen',
    );
    writeFileSync(ready, '');
    const result = await call;
    assert.deepEqual([result.status, result.content], ['ok', 'done']);
  });
});
