// `permissions` in registry:add: bad shapes are diagnostics at their lines, and a tool that declares
// permissions is held to them by moonpool — through `..`, symbolic links (also swapped after the
// check), require, loadfile, io.lines, os.rename, os.remove, and every way of starting a process —
// while a tool that declares none keeps full access.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

/** A tool per permission set, each running the Lua it is given as `code` (chunk `probe`). */
const PROBES = `
local function probe(name, permissions)
  registry_ref:add {
    name = name, description = 'Runs the Lua it is given.', permissions = permissions,
    parameters = { type = 'object', properties = { code = { type = 'string' } }, required = { 'code' } },
    run = function(args) return tostring(assert(load(args.code, '=probe'))()) end,
  }
end
`;

function config(root: string): string {
  const dir = join(root, 'cfg');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'init.lua'),
    `agent.on('discover_tools', function(registry)
  registry_ref = registry
${PROBES}
  probe('full', nil)
  probe('bounded', { read = { '.' }, write = { 'out/' }, exec = { 'echo', '/usr/bin/env' }, env = { 'HOME' } })
  probe('shell', { read = { '.' }, exec = { 'sh' } })
  probe('nothing', {})
  registry:add {
    name = 'lined', description = 'Opens a file outside its roots.', permissions = { read = { '.' } },
    run = function()
      return io.open('../secret.txt'):read('a')
    end,
  }
end)
`,
  );
  return join(dir, 'init.lua');
}

const root = tempDir();
const work = join(root, 'work');
mkdirSync(join(work, 'out'), { recursive: true });
mkdirSync(join(root, 'lib'));
writeFileSync(join(root, 'secret.txt'), 'secret');
writeFileSync(join(root, 'lib', 'outside.lua'), "return 'loaded from outside'");
writeFileSync(join(work, 'inside.txt'), 'inside');
symlinkSync(join(root, 'secret.txt'), join(work, 'to-secret'));
symlinkSync('inside.txt', join(work, 'to-inside'));
symlinkSync(join(root, 'secret.txt'), join(work, 'out', 'to-secret'));
symlinkSync(join(root, 'created.txt'), join(work, 'out', 'dangling'));
symlinkSync(root, join(work, 'out', 'up'));
const host = await startHost(config(root), { cwd: work });

describe('a tool held to its permissions', () => {
  const run = async (tool: string, code: string) => {
    const result = await host.call(tool, { code });
    return { status: result.status, content: result.content };
  };
  const refused = async (tool: string, code: string, pattern: RegExp) => {
    const result = await run(tool, code);
    assert.equal(result.status, 'error', result.content);
    assert.match(result.content, pattern);
  };

  test("a bad call names the tool's file and line", async () => {
    const result = await host.call('lined', {});
    assert.equal(result.status, 'error');
    const line =
      readFileSync(join(root, 'cfg', 'init.lua'), 'utf8')
        .split('\n')
        .findIndex((text) => text.includes("io.open('../secret.txt')")) + 1;
    assert.match(
      result.content,
      new RegExp(
        `^${join(root, 'cfg', 'init.lua')}:${line}: read outside the tool's permissions: ${join(root, 'secret.txt')} \\(allowed: \\.\\)`,
      ),
    );
  });

  test('reads stay under the roots, through .., absolute paths and symbolic links', async () => {
    assert.deepEqual(await run('bounded', "return io.open('inside.txt'):read('a')"), {
      status: 'ok',
      content: 'inside',
    });
    assert.deepEqual(await run('bounded', "return io.open('to-inside'):read('a')"), {
      status: 'ok',
      content: 'inside',
    });
    assert.deepEqual(await run('bounded', "return io.open('out/../inside.txt'):read('a')"), {
      status: 'ok',
      content: 'inside',
    });
    const outside = new RegExp(
      `^probe:1: read outside the tool's permissions: ${join(root, 'secret.txt')} \\(allowed: \\., out/\\)`,
    );
    for (const path of [
      '../secret.txt',
      join(root, 'secret.txt'),
      'to-secret',
      'out/up/secret.txt',
      'out/../../secret.txt',
    ]) {
      await refused('bounded', `return io.open('${path}'):read('a')`, outside);
      await refused('bounded', `for line in io.lines('${path}') do return line end`, outside);
    }
  });

  test('code loads only from the roots and the config: require, loadfile, dofile', async () => {
    const outside = /^probe:1: read outside the tool's permissions: .*\/lib\/outside\.lua/;
    await refused(
      'bounded',
      `package.path = '${root}/lib/?.lua;' .. package.path; local m = require('outside') return m`,
      outside,
    );
    await refused('bounded', `local f = loadfile('${root}/lib/outside.lua') return f`, outside);
    await refused('bounded', `local v = dofile('../lib/outside.lua') return v`, outside);
    assert.deepEqual(await run('full', `return dofile('../lib/outside.lua')`), {
      status: 'ok',
      content: 'loaded from outside',
    });
  });

  test('writes stay under the write roots: no create, truncate or write through a link out', async () => {
    assert.deepEqual(
      await run(
        'bounded',
        "local f = assert(io.open('out/new.txt', 'w')); f:write('x'); f:close(); return io.open('out/new.txt'):read('a')",
      ),
      { status: 'ok', content: 'x' },
    );
    await refused(
      'bounded',
      "return io.open('inside.txt', 'a')",
      /write outside the tool's permissions: .*\/work\/inside\.txt \(allowed: out\/\)/,
    );
    await refused(
      'bounded',
      "return io.open('out/to-secret', 'w')",
      /write outside the tool's permissions: .*\/secret\.txt/,
    );
    await refused(
      'bounded',
      "return io.open('out/dangling', 'w')",
      /write outside the tool's permissions: .*\/created\.txt/,
    );
    await refused(
      'bounded',
      "return io.open('out/up/made.txt', 'w')",
      /write outside the tool's permissions: .*\/made\.txt/,
    );
    await refused('bounded', "return io.open('out/../inside.txt', 'r+')", /write outside the tool's permissions/);
    assert.equal(readFileSync(join(root, 'secret.txt'), 'utf8'), 'secret');
    assert.equal(existsSync(join(root, 'created.txt')), false);
    assert.equal(existsSync(join(root, 'made.txt')), false);
  });

  test('os.remove and os.rename act only under the write roots; a link is removed, not its target', async () => {
    await refused(
      'bounded',
      `local ok = os.remove('${root}/secret.txt') return ok`,
      /^probe:1: write outside the tool's permissions: .*\/secret\.txt/,
    );
    await refused('bounded', "return os.remove('inside.txt')", /write outside the tool's permissions/);
    await refused(
      'bounded',
      "return os.rename('inside.txt', 'out/moved.txt')",
      /write outside the tool's permissions: .*\/work\/inside\.txt/,
    );
    await refused(
      'bounded',
      "io.open('out/a.txt', 'w'):close(); return os.rename('out/a.txt', '../a.txt')",
      /write outside the tool's permissions: .*\/a\.txt/,
    );
    assert.deepEqual(await run('bounded', "return tostring(os.remove('out/to-secret'))"), {
      status: 'ok',
      content: 'true',
    });
    assert.equal(readFileSync(join(root, 'secret.txt'), 'utf8'), 'secret');
    assert.ok(existsSync(join(work, 'inside.txt')));
  });

  test('a symbolic link swapped between the check and the open is caught on the opened file', async () => {
    // A node process swaps out/swap between a file inside and the secret as fast as it can.
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const at = (n) => ${JSON.stringify(join(work, 'out'))} + '/' + n;
       for (let i = 0; ; i++) { const t = at('swap.tmp'); try { fs.unlinkSync(t) } catch {}
         fs.symlinkSync(i % 2 ? ${JSON.stringify(join(work, 'inside.txt'))} : ${JSON.stringify(join(root, 'secret.txt'))}, t); fs.renameSync(t, at('swap')); }`,
      ],
      { stdio: 'ignore' },
    );
    after(() => swapper.kill('SIGKILL'));
    const code = `local leaked, refused, read = 0, 0, 0
      for _ = 1, 3000 do
        local ok, file = pcall(io.open, 'out/swap')
        if not ok then refused = refused + 1
        elseif file then
          local text = file:read('a'); file:close()
          if text == 'secret' then leaked = leaked + 1 else read = read + 1 end
        end
      end
      return leaked .. ' ' .. refused .. ' ' .. read`;
    const result = await run('bounded', code);
    swapper.kill('SIGKILL');
    assert.equal(result.status, 'ok', result.content);
    const [leaked, refusedCount, read] = result.content.split(' ').map(Number);
    assert.equal(leaked, 0, `the secret was read ${leaked} times (${refusedCount} refused, ${read} read inside)`);
  });

  test('a directory swapped for a link between the check and the act creates, removes or moves nothing outside', async () => {
    // out/swapdir leads by turns to a directory inside the write roots and to one outside them.
    const outside = join(root, 'outside-dir');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep'), 'kept');
    writeFileSync(join(outside, 'stay'), 'stayed');
    mkdirSync(join(work, 'out', 'real-dir'));
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('fs'); const at = (n) => ${JSON.stringify(join(work, 'out'))} + '/' + n;
       for (let i = 0; ; i++) { const t = at('swapdir.tmp'); try { fs.unlinkSync(t) } catch {}
         fs.symlinkSync(i % 2 ? at('real-dir') : ${JSON.stringify(outside)}, t); fs.renameSync(t, at('swapdir')); }`,
      ],
      { stdio: 'ignore' },
    );
    after(() => swapper.kill('SIGKILL'));
    const code = `local created, refused = 0, 0
      for i = 1, 3000 do
        local ok, file = pcall(io.open, 'out/swapdir/f' .. i, 'w')
        if not ok then refused = refused + 1 elseif file then file:close(); created = created + 1 end
        pcall(os.remove, 'out/swapdir/keep')
        pcall(os.rename, 'out/swapdir/stay', 'out/taken')
      end
      return created .. ' ' .. refused`;
    const result = await run('bounded', code);
    swapper.kill('SIGKILL');
    assert.equal(result.status, 'ok', result.content);
    const [created, refusedCount] = result.content.split(' ').map(Number);
    assert.deepEqual(
      readdirSync(outside).sort(),
      ['keep', 'stay'],
      `${created} created inside, ${refusedCount} refused`,
    );
  });

  test('a write through a link that stays inside the roots creates its target', async () => {
    symlinkSync('made-through-link.txt', join(work, 'out', 'to-mine'));
    assert.deepEqual(
      await run('bounded', "local f = assert(io.open('out/to-mine', 'w')); f:write('y'); return f:close()"),
      { status: 'ok', content: 'true' },
    );
    assert.equal(readFileSync(join(work, 'out', 'made-through-link.txt'), 'utf8'), 'y');
  });

  test('without exec no process starts, by any of the ways there are', async () => {
    const none = /exec outside the tool's permissions: sh, to run a shell command \(allowed: none\)/;
    await refused('nothing', "return capture('echo hi')", none);
    await refused('nothing', "return capture('echo hi &', { keep = true })", none);
    await refused('nothing', "return io.popen('echo hi'):read('a')", none);
    await refused('nothing', "return io.popen('cat', 'w')", none);
    await refused('nothing', "return os.execute('true')", none);
    await refused(
      'nothing',
      "return capture { 'echo', 'hi' }",
      /exec outside the tool's permissions: echo \(allowed: none\)/,
    );
  });

  test('with a list, only those programs, without a shell; a shell string needs sh', async () => {
    assert.deepEqual(await run('bounded', "return capture { 'echo', 'a;b', '$HOME', 5 }"), {
      status: 'ok',
      content: 'a;b $HOME 5',
    });
    await refused(
      'bounded',
      "return capture { 'rm', 'inside.txt' }",
      /exec outside the tool's permissions: rm \(allowed: echo, \/usr\/bin\/env\)/,
    );
    await refused('bounded', "return capture { '/bin/echo', 'x' }", /exec outside the tool's permissions: \/bin\/echo/);
    await refused('bounded', "return capture('echo hi')", /a shell command/);
    await refused('bounded', "return os.execute('echo hi')", /a shell command/);
    await refused('bounded', "return io.popen('echo hi')", /a shell command/);
    assert.deepEqual(await run('shell', "return capture('echo hi; echo there')"), {
      status: 'ok',
      content: 'hi\nthere',
    });
    assert.deepEqual(await run('shell', "return io.popen('echo piped'):read('a')"), {
      status: 'ok',
      content: 'piped\n',
    });
    await refused('bounded', 'return capture {}', /capture: the command list is empty/);
  });

  test('the environment holds only the declared variables, for os.getenv and for commands', async () => {
    assert.deepEqual(await run('bounded', "return tostring(os.getenv('HOME')) .. ' ' .. tostring(os.getenv('PATH'))"), {
      status: 'ok',
      content: `${process.env['HOME']} nil`,
    });
    const env = await run('bounded', "return capture { '/usr/bin/env' }");
    assert.equal(env.status, 'ok', env.content);
    // The shell that starts the program sets PWD itself.
    const names = env.content
      .split('\n')
      .map((line) => line.split('=')[0])
      .filter((name) => name !== 'PWD');
    assert.deepEqual(names.sort(), ['HOME', 'MOONPOOL_CALL_TAG']);
  });

  test('a path past PATH_MAX is refused as the kernel refuses it, and a long one under it resolves', async () => {
    // Each operation's failure as Lua sees it, the path written <p>.
    const failures = (path: string) => `local p = ${path}
      local function failure(ok, message, errno)
        local from, to = message:find(p, 1, true)
        if from then message = message:sub(1, from - 1) .. '<p>' .. message:sub(to + 1) end
        return tostring(ok) .. ' ' .. message .. ' ' .. tostring(errno)
      end
      return table.concat({ failure(io.open(p)), failure(io.open(p, 'w')), failure(os.remove(p)), failure(loadfile(p)) }, ' | ')`;
    // 80 KB of 40,000 components: the check once recursed per component, past the JS stack.
    const tooLong = failures("string.rep('a/', 40000) .. 'x'");
    const refusedTooLong = [
      ...Array<string>(3).fill('nil <p>: File name too long 36'),
      'nil cannot open <p>: File name too long nil',
    ].join(' | ');
    assert.deepEqual(await run('bounded', tooLong), { status: 'ok', content: refusedTooLong });
    assert.deepEqual(await run('full', tooLong), { status: 'ok', content: refusedTooLong });
    // 4,005 bytes of 2,002 components, missing past the write root: judged inside, then not found.
    const missing = failures("'out/' .. string.rep('a/', 2000) .. 'x'");
    const notFound = [
      ...Array<string>(3).fill('nil <p>: No such file or directory 2'),
      'nil cannot open <p>: No such file or directory nil',
    ].join(' | ');
    assert.deepEqual(await run('bounded', missing), { status: 'ok', content: notFound });
    assert.deepEqual(await run('full', missing), { status: 'ok', content: notFound });
  });

  test('a tool without permissions keeps full access', async () => {
    assert.deepEqual(await run('full', "return io.open('../secret.txt'):read('a')"), {
      status: 'ok',
      content: 'secret',
    });
    assert.deepEqual(await run('full', "return capture('echo hi')"), { status: 'ok', content: 'hi' });
    assert.deepEqual(await run('full', "return tostring(os.getenv('PATH') ~= nil)"), { status: 'ok', content: 'true' });
  });
});

describe('checking the permissions field', () => {
  const diagnosticsOf = async (lua: string) => {
    const root = tempDir();
    writeFileSync(join(root, 'init.lua'), lua);
    const host = await startHost(join(root, 'init.lua'));
    return {
      host,
      tools: host.tools().map((tool) => tool.name),
      diagnostics: host.diagnostics().map((d) => `${d.line}: ${d.severity}: ${d.message}`),
    };
  };

  test('each mistake is an error at its line, and the tool is not loaded', async () => {
    const { tools, diagnostics } = await diagnosticsOf(`agent.on('discover_tools', function(registry)
  registry:add {
    name = 'x', description = 'x', run = function() return '' end,
    permissions = {
      read = '.',
      write = { 'out/',
        5 },
      exec = { 'git log' },
      env = { 'A=B' },
      wirte = {},
    },
  }
  registry:add { name = 'y', description = 'y', run = function() return '' end, permissions = 'all' }
  registry:add { name = 'z', description = 'z', run = function() return '' end, permissions = { read = true, exec = false } }
end)
`);
    assert.deepEqual(tools, ['z']);
    assert.deepEqual(diagnostics, [
      "5: error: tool 'x': permissions.read must be true or a list of paths (got \"." + '")',
      "7: error: tool 'x': permissions.write[2] must be a non-empty path (got number 5)",
      "8: error: tool 'x': permissions.exec[1] must be a program's name or path, without spaces (its arguments are the call's) (got \"git log\")",
      '9: error: tool \'x\': permissions.env[1] must be a variable name (no `=`) (got "A=B")',
      "10: error: tool 'x': unknown field `permissions.wirte` (did you mean `write`?)",
      '13: error: tool \'y\': `permissions` must be a table with the fields read, write, exec, env (got "all")',
    ]);
  });

  test("the config's default applies to the tools that declare none, and its mistakes are at its line", async () => {
    const good = await diagnosticsOf(`agent.default_permissions { read = { '.' } }
agent.on('discover_tools', function(registry)
  registry:add { name = 'x', description = 'x', run = function() local f = io.open('/etc/hostname') return f end }
end)
`);
    assert.deepEqual([good.tools, good.diagnostics], [['x'], []]);
    const result = await good.host.call('x', {});
    assert.match(result.content, /:3: read outside the tool's permissions: \/etc\/hostname \(allowed: \.\)/);
    const bad = await diagnosticsOf(`agent.on('discover_tools', function(registry)
  registry:add { name = 'x', description = 'x', run = function() return '' end }
  registry:add { name = 'y', description = 'y', run = function() return '' end, permissions = {} }
end)
agent.default_permissions { exec = 'git' }
`);
    assert.deepEqual(
      [bad.tools, bad.diagnostics],
      [['y'], ['5: error: tool \'x\': default permissions.exec must be true or a list of programs (got "git")']],
    );
  });
});
