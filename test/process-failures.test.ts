// When capture, io.popen or os.execute cannot do what was asked — too much output, too many
// commands at once, a working directory that is gone — the tool gets an error naming the limit
// or the system's reason, at the tool's own line, and the module's other tools keep answering.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, test } from 'node:test';
import {
  eventually,
  FIXTURES,
  liveProcesses,
  permissionsEnforced,
  ROOT,
  startHost,
  tempDir,
  uniqueSeconds,
} from './helpers.js';

const FIXTURE = join(FIXTURES, 'process');
const INIT = join(FIXTURE, 'init.lua');
const VIAS = ['capture', 'popen', 'execute'] as const;
const PREFIX = { capture: 'capture', popen: 'io.popen', execute: 'os.execute' } as const;

/** The line of the fixture's `fail` tool that runs the failing command for `how`. */
function lineOf(how: 'output' | 'children' | 'none'): number {
  const marker = {
    output: "command('head -c 70000000",
    children: "command('sleep ' .. args.seconds",
    none: "command('true')",
  }[how];
  return (
    readFileSync(INIT, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes(marker)) + 1
  );
}

describe('failures of capture, io.popen and os.execute', async () => {
  const host = await startHost(FIXTURE);

  test('capture of more than 64 MiB fails at the tool line naming the limit; popen streams and execute logs, so neither has one', async () => {
    const [capture, popen, execute, healthy] = await Promise.all([
      host.call('fail', { via: 'capture', how: 'output' }),
      host.call('fail', { via: 'popen', how: 'output' }),
      host.call('fail', { via: 'execute', how: 'output' }),
      host.call('healthy', {}),
    ]);
    assert.equal(capture.status, 'error');
    assert.ok(
      capture.content.startsWith(
        `${INIT}:${lineOf('output')}: capture: the command printed more than 64 MiB; write large output to a file instead`,
      ),
      capture.content,
    );
    assert.deepEqual(
      [popen.status, popen.content, execute.status, execute.content],
      ['ok', 'no failure', 'ok', 'no failure'],
    );
    assert.equal(healthy.content, 'fine');
  });

  for (const via of VIAS) {
    test(`${PREFIX[via]} past 60 commands running at once fails at the tool line naming the limit, and the call's commands end with it`, async () => {
      const seconds = uniqueSeconds();
      const [result, healthy] = await Promise.all([
        host.call('fail', { via, how: 'children', seconds }),
        host.call('healthy', {}),
      ]);
      assert.equal(result.status, 'error');
      assert.ok(
        result.content.startsWith(
          `${INIT}:${lineOf('children')}: ${PREFIX[via]}: too many processes: a call may have at most 60 commands running at once`,
        ),
        result.content,
      );
      assert.equal(healthy.content, 'fine');
      assert.ok(
        await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
        liveProcesses(`sleep ${seconds}`).join('\n'),
      );
    });
  }

  test('each of them in a working directory that was deleted fails at the tool line naming the directory', async () => {
    const cwd = join(tempDir(), 'gone');
    mkdirSync(cwd);
    const inGone = await startHost(FIXTURE, { cwd });
    rmSync(cwd, { recursive: true });
    for (const via of VIAS) {
      const result = await inGone.call('fail', { via, how: 'none' });
      assert.equal(result.status, 'error', via);
      assert.ok(
        result.content.startsWith(
          `${INIT}:${lineOf('none')}: ${PREFIX[via]}: cannot start the command: the working directory ${cwd} does not exist`,
        ),
        result.content,
      );
    }
    mkdirSync(cwd);
    assert.equal((await inGone.call('healthy', {})).content, 'fine');
  });

  test("capture's options are checked: a typo, a wrong type or a non-table is an error at the tool line", async () => {
    const code = [
      "out(pcall(function() local o = capture('true', { kep = true }); return o end))",
      "out(pcall(function() local o = capture('true', { keep = 'yes' }); return o end))",
      "out(pcall(function() local o = capture('true', 'keep'); return o end))",
      "out(capture('echo kept', { keep = false }))",
    ].join('\n');
    const result = await host.call('snippet', { code });
    assert.equal(
      result.content,
      [
        "false snippet:1: capture: unknown option 'kep'",
        "false snippet:2: capture: option 'keep' must be a boolean, got string",
        'false snippet:3: capture: options must be a table, got string',
        'kept 0',
      ].join('\n'),
    );
  });

  test('the CaptureOptions annotations list exactly the options capture knows', () => {
    const meta = readFileSync(join(ROOT, 'workers', 'lua', 'meta', 'moonpool.lua'), 'utf8');
    const block = meta.split('---@class CaptureOptions\n')[1]!.split(/\n(?!---@field)/)[0]!;
    const annotated = [...block.matchAll(/---@field (\w+)/g)].map((match) => match[1]!);
    const shell = readFileSync(join(ROOT, 'workers', 'lua', 'shell.lua'), 'utf8');
    const known = [.../local CAPTURE_OPTIONS = \{([^}]*)\}/.exec(shell)![1]!.matchAll(/(\w+) = '/g)].map(
      (match) => match[1]!,
    );
    assert.deepEqual(annotated.sort(), known.sort());
  });

  test("writing to a 'w' popen whose command has exited returns Broken pipe (native Lua would die of SIGPIPE)", async () => {
    const code = [
      "local w = io.popen('exit 3', 'w')",
      "w:setvbuf('no')",
      "out(w:write(string.rep('x', 4000000)))",
      'out(w:close())',
    ].join('\n');
    const [result, healthy] = await Promise.all([host.call('snippet', { code }), host.call('healthy', {})]);
    assert.equal(result.content, 'nil Broken pipe 32\nnil exit 3');
    assert.equal(healthy.content, 'fine');
  });

  test('a working directory that is a file is named as such', async () => {
    const cwd = join(tempDir(), 'file');
    mkdirSync(cwd);
    const inFile = await startHost(FIXTURE, { cwd });
    rmSync(cwd, { recursive: true });
    writeFileSync(cwd, 'a file where the directory was');
    const result = await inFile.call('fail', { via: 'capture', how: 'none' });
    assert.ok(
      result.content.startsWith(
        `${INIT}:${lineOf('none')}: capture: cannot start the command: the working directory ${cwd} is not a directory`,
      ),
      result.content,
    );
  });
});

test('a working directory that may not be entered is named as such', (t) => {
  const cwd = join(tempDir(), 'closed');
  mkdirSync(cwd);
  const library = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;
  const options = { config: INIT, stateDir: tempDir(), cwd };
  const script = [
    `const { ToolHost } = await import(${JSON.stringify(library)});`,
    `const host = await ToolHost.start(${JSON.stringify(options)});`,
    "const result = await host.call('fail', { via: 'capture', how: 'none' });",
    'await host.close();',
    'process.stdout.write(result.content);',
  ].join('\n');
  const run = permissionsEnforced(process.execPath, ['--input-type=module', '-e', script]);
  if ('skip' in run) return t.skip(run.skip);
  chmodSync(cwd, 0o000);
  try {
    const child = spawnSync(run.command, run.args, { encoding: 'utf8', timeout: 60_000 });
    assert.ok(
      child.stdout.startsWith(
        `${INIT}:${lineOf('none')}: capture: cannot start the command: the working directory ${cwd} cannot be entered (EACCES)`,
      ),
      `${child.stdout}\n${child.stderr}`,
    );
  } finally {
    chmodSync(cwd, 0o755);
  }
});

test('capture, io.popen and os.execute inside a coroutine of the tool say they cannot wait there, at the tool line', async () => {
  const file = join(tempDir(), 'init.lua');
  writeFileSync(file, readFileSync(join(ROOT, 'test', 'fixtures', 'coroutine-waits.lua')));
  const host = await startHost(file);
  for (const [tool, caller, line] of [
    ['in_wrap', 'capture', 4],
    ['in_resume', 'io.popen', 8],
    ['execute_in_wrap', 'os.execute', 13],
  ] as const) {
    const result = await host.call(tool, {});
    assert.equal(result.status, 'error', tool);
    assert.ok(
      result.content.includes(`${file}:${line}: ${caller}: cannot wait for a command inside a coroutine of your own`),
      `${tool}: ${result.content}`,
    );
  }
  const top = await host.call('at_top', {});
  assert.deepEqual([top.status, top.content], ['ok', 'hi there']);
});

test('capture, io.popen and os.execute under a C function are refused at the tool line before anything starts', async () => {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  writeFileSync(file, readFileSync(join(ROOT, 'test', 'fixtures', 'c-function-waits.lua')));
  const host = await startHost(file);
  const seconds = uniqueSeconds();
  const refused = (caller: string, line: number): string =>
    `${file}:${line}: ${caller}: cannot wait for a command inside a C function (a string.gsub or table.sort callback, a metamethod called by one); run it before or after that call`;
  for (const [tool, caller, line] of [
    ['under_print', 'capture', 6],
    ['in_sort', 'os.execute', 10],
    ['in_gsub', 'io.popen', 14],
    ['kept_in_gsub', 'capture', 18],
  ] as const) {
    const marker = join(dir, `${tool}.ran`);
    const result = await host.call(tool, { marker, seconds });
    assert.equal(result.status, 'ok', `${tool}: ${result.content}`);
    assert.ok(result.content.startsWith(refused(caller, line)), `${tool}: ${result.content}`);
    assert.equal(existsSync(marker), false, `${tool} ran its command`);
  }
  assert.deepEqual(liveProcesses(seconds), [], 'the kept command was started');
  const read = await host.call('read_in_sort', {});
  assert.deepEqual(read.content.split('\n'), [refused('io.popen', 22), 'kept']);
});

test('a popen handle kept past its call reads as a command that ended with that call', async () => {
  const file = join(tempDir(), 'init.lua');
  writeFileSync(file, readFileSync(join(ROOT, 'test', 'fixtures', 'kept-pipes.lua')));
  const host = await startHost(file, { maxThreadsPerModule: 1 });
  const kept = await host.call('keep', { count: 3, bytes: 2_000_000 });
  assert.deepEqual([kept.status, kept.content], ['ok', '3']);
  const used = await host.call('use_kept', {});
  const ended = (line: number): string => `${file}:${line}: io.popen: the command ended with the call that started it`;
  assert.deepEqual([used.status, used.content], ['ok', `${ended(11)}\n${ended(12)}`]);
});

test("capture's shell messages number the command's own lines from 1, as sh -c does", async () => {
  const host = await startHost(FIXTURE);
  const code = "out(capture('echo one\\nnosuchcmd_moonpool_d 2>&1'))\nout(capture('nosuchcmd_moonpool_e 2>&1'))";
  const result = await host.call('snippet', { code });
  assert.deepEqual(result.content.split('\n'), [
    'one',
    'sh: 2: nosuchcmd_moonpool_d: not found 127',
    'sh: 1: nosuchcmd_moonpool_e: not found 127',
  ]);
});
