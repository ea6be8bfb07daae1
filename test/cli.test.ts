// The built `moonpool` command, spawned as a user would run it: list, call, check, the config
// lookup, and the exit codes 0 / 1 / 2.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BUNDLED_CONFIG, ToolHost } from '../core/index.js';
import {
  CLI,
  eventually,
  EXAMPLES,
  FIXTURE_BIN,
  FIXTURES,
  liveProcesses,
  permissionsEnforced,
  tempDir,
  uniqueSeconds,
} from './helpers.js';

const stateDir = tempDir();

function moonpool(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { code: number | null; stdout: string; stderr: string; why: string } {
  const result = spawnSync(process.execPath, [CLI, ...args, '--state-dir', stateDir], {
    encoding: 'utf8',
    cwd: stateDir,
    env: { ...process.env, PATH: `${FIXTURE_BIN}:${process.env['PATH'] ?? ''}`, MOONPOOL_CONFIG: '', ...env },
    timeout: 30_000,
  });
  // What an assertion on the exit code prints: how the process ended, and what it said.
  const ended = result.error?.message ?? (result.signal ? `killed by ${result.signal}` : `exit ${result.status}`);
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, why: `${ended}\n${result.stderr}` };
}

const seed1 = join(EXAMPLES, 'seed', '1-weather');

describe('moonpool call', () => {
  test('prints the model-facing text and exits 0: call weather \'{"city":"Paris"}\'', () => {
    const run = moonpool(['call', 'weather', '{"city":"Paris"}', '--config', seed1]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'The weather in Paris is sunny (1 argument: Paris)\n');
  });

  test('--json prints the whole call result', () => {
    const run = moonpool(['call', 'weather', '{"city":"Paris"}', '--json', '--config', seed1]);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(result['status'], 'ok');
    assert.equal(result['isError'], false);
    assert.equal(typeof result['durationMs'], 'number');
  });

  test('a tool error exits 1 with the message on stderr', () => {
    const run = moonpool(['call', 'weather', '{}', '--config', seed1]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /args\.city: is required/);
  });

  test('JSON that does not parse is a usage error: exit 2', () => {
    const run = moonpool(['call', 'weather', '{city: Paris}', '--config', seed1]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /the arguments are not valid JSON/);
  });

  test('an unknown command or option is a usage error: exit 2', () => {
    assert.equal(moonpool(['frobnicate']).code, 2);
    assert.equal(moonpool(['list', '--bogus']).code, 2);
  });

  test('a usage error is one line naming what was typed, the name meant and the help to read', () => {
    const asRun = `node ${CLI}`;
    const said = (args: string[]): string => {
      const run = moonpool(args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
      return run.stderr;
    };
    assert.equal(said(['-V']), `moonpool: unknown option '-V' (did you mean '-v'?); see '${asRun} help'\n`);
    assert.equal(said(['lst']), `moonpool: unknown command 'lst' (did you mean 'list'?); see '${asRun} help'\n`);
    assert.equal(
      said(['list', '--timeout', 'abc']),
      `moonpool: --timeout takes a positive number of seconds (got 'abc'); see '${asRun} help list'\n`,
    );
    assert.equal(
      said(['call', 'x', '--session', 'a b']),
      `moonpool: --session takes a session id: 1-64 letters, digits, _ and - (got 'a b'); see '${asRun} help call'\n`,
    );
    assert.equal(
      said(['call', '--sesion', 'x']),
      `moonpool: unknown option '--sesion' (did you mean '--session'?); see '${asRun} help call'\n`,
    );
    assert.equal(said(['check', '--config']), `moonpool: --config needs a value; see '${asRun} help check'\n`);
    assert.equal(
      said(['call', 'x', '{}', '--timeout', '-1']),
      `moonpool: --timeout needs a value; one starting with '-' is written --timeout=-1; see '${asRun} help call'\n`,
    );
    assert.equal(
      said(['replay', 'nosuch']),
      `moonpool: no session 'nosuch' in ${stateDir}; '${asRun} sessions' lists them\n`,
    );
  });

  test('hints name moonpool when that name on PATH is this program', () => {
    const bin = tempDir();
    symlinkSync(CLI, join(bin, 'moonpool'));
    const run = moonpool(['lst'], { PATH: `${bin}:${process.env['PATH'] ?? ''}` });
    assert.equal(run.stderr, "moonpool: unknown command 'lst' (did you mean 'list'?); see 'moonpool help'\n");
  });

  test("help: the whole usage, or one command's, as `help COMMAND` or `COMMAND --help`", () => {
    const whole = moonpool(['help']);
    assert.equal(whole.code, 0);
    assert.match(whole.stdout, /^ {2}moonpool help \[COMMAND\]/m);
    assert.equal(moonpool(['--help']).stdout, whole.stdout);
    const call = moonpool(['help', 'call']);
    assert.equal(call.code, 0);
    assert.match(call.stdout, /^Usage: moonpool call TOOL \[JSON\] \[--json\] \[--yes\]\n/);
    assert.match(call.stdout, /^ {2}--timeout S /m);
    assert.doesNotMatch(call.stdout, /--strict/);
    assert.equal(moonpool(['call', '--help']).stdout, call.stdout);
    assert.match(moonpool(['check', '-h']).stdout, /^ {2}--strict /m);
  });

  test("each command's help explains every option its usage line shows", () => {
    for (const command of ['dash', 'list', 'call', 'check', 'replay', 'sessions', 'mcp', 'new']) {
      const help = moonpool(['help', command]).stdout;
      const usage = help.split('\n')[0]!;
      for (const option of usage.match(/--[a-z-]+/g) ?? [])
        assert.match(help, new RegExp(`^ {2}${option} `, 'm'), `${command}: ${option}`);
    }
  });

  test('mcp --help shows --config and never offers the bundled demo as its default', () => {
    const mcp = moonpool(['mcp', '--help']);
    assert.match(mcp.stdout, /^Usage: moonpool mcp \[--config FILE\] \[--watch\]\n/);
    assert.match(mcp.stdout, /then \$XDG_CONFIG_HOME\/moonpool\/init\.lua; one of them is required\n/);
    assert.doesNotMatch(mcp.stdout, /then the bundled demo/);
    assert.match(moonpool(['help']).stdout, /^ {2}moonpool mcp \[--config FILE\] \[--watch\] /m);
  });

  test('--cpu-slots takes a whole number of at least 1', () => {
    assert.equal(moonpool(['call', 'weather', '{"city":"Paris"}', '--cpu-slots', '1', '--config', seed1]).code, 0);
    const bad = moonpool(['call', 'weather', '{"city":"Paris"}', '--cpu-slots', '0', '--config', seed1]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--cpu-slots takes a whole number, at least 1 \(got '0'\)/);
  });
});

describe('moonpool list', () => {
  test('--format prints each API’s exact tool shape', () => {
    const shapes = {
      anthropic: { name: 'weather', description: 'Look up the current weather for a city.', input_schema: {} },
      openai: {
        type: 'function',
        function: { name: 'weather', description: 'Look up the current weather for a city.', parameters: {} },
      },
      mcp: { name: 'weather', description: 'Look up the current weather for a city.', inputSchema: {} },
    };
    const schema = {
      type: 'object',
      properties: { city: { type: 'string', description: 'The city to look up.' } },
      required: ['city'],
    };
    for (const [format, shape] of Object.entries(shapes)) {
      const run = moonpool(['list', '--format', format, '--config', seed1]);
      assert.equal(run.code, 0, run.stderr);
      const expected = JSON.parse(JSON.stringify(shape).replace('{}', JSON.stringify(schema))) as unknown;
      assert.deepEqual(JSON.parse(run.stdout), [expected]);
    }
  });

  test('without a weather command the gated tool is listed as unavailable, and absent from --json', () => {
    const config = join(EXAMPLES, 'seed', '3-weather-available');
    const env = { PATH: '/usr/bin:/bin' };
    assert.match(
      moonpool(['list', '--config', config], env).stdout,
      /weather\s+\(unavailable: available\(\) returned false\)/,
    );
    assert.deepEqual(JSON.parse(moonpool(['list', '--json', '--config', config], env).stdout), []);
    const call = moonpool(['call', 'weather', '{"city":"Rome"}', '--config', config], env);
    assert.equal(call.code, 1);
    assert.match(call.stderr, /weather is unavailable/);
  });
});

describe('moonpool check', () => {
  test('prints one file:line: message per problem, at the line of the field, exits 1, and the good tool still runs', () => {
    const broken = join(FIXTURES, 'broken');
    const run = moonpool(['check', '--config', broken]);
    assert.equal(run.code, 1);
    const file = join(broken, 'init.lua');
    const locations = run.stdout
      .trim()
      .split('\n')
      .slice(0, -1)
      .map((line) => line.split(': ')[0]);
    // The good tool at line 3 declares no permissions: a note, in line order.
    assert.deepEqual(locations, [`${file}:3`, `${file}:10`, `${file}:17`, `${file}:20`, `${file}:24`]);
    assert.match(run.stdout, /:10: registry:add: `name` must match/);
    assert.match(
      run.stdout,
      /:17: tool 'bad_schema': parameters\.properties\.n\.type: "integr" is not a JSON Schema type \(did you mean "integer"\?\)/,
    );
    assert.match(run.stdout, /:20: tool 'no_run': `run` must be a function \(got nil\)/);
    assert.match(run.stdout, /:24: duplicate tool name 'good'/);
    assert.match(run.stdout, /1 tool loaded; 4 errors, 0 warnings, 1 note\n$/);
    const good = moonpool(['call', 'good', '--config', broken]);
    assert.deepEqual([good.code, good.stdout], [0, 'fine\n']);
  });

  test('call on a tool whose definition has an error says why it was not loaded, and how many problems check shows', () => {
    const broken = join(FIXTURES, 'broken');
    const run = moonpool(['call', 'no_run', '--config', broken]);
    assert.equal(run.code, 1, run.why);
    const notice = /^moonpool: 4 problems in the config; run '[^']* check' to see them\n$/m;
    assert.equal(
      run.stderr.split('\n')[0],
      "unknown tool 'no_run': its definition has an error, so it was not loaded (init.lua:20: `run` must be a function (got nil))",
    );
    assert.match(run.stderr, notice);
    const good = moonpool(['call', 'good', '--config', broken]);
    assert.match(good.stderr, notice);
  });

  test('a syntax error is reported with file:line and exit 1; list and call exit 2', () => {
    const config = join(FIXTURES, 'syntax-error');
    const check = moonpool(['check', '--config', config]);
    assert.equal(check.code, 1, check.why);
    assert.match(check.stdout, new RegExp(`^${join(config, 'init.lua')}:5: '}' expected`));
    const list = moonpool(['list', '--config', config]);
    assert.equal(list.code, 2, list.why);
    assert.match(list.stderr, /init\.lua:5: /);
  });
});

describe('config lookup', () => {
  test('$MOONPOOL_CONFIG is used when there is no --config', () => {
    const run = moonpool(['list', '--json'], { MOONPOOL_CONFIG: seed1 });
    assert.deepEqual(
      (JSON.parse(run.stdout) as { name: string }[]).map((tool) => tool.name),
      ['weather'],
    );
  });

  test('$XDG_CONFIG_HOME/moonpool/init.lua comes next', () => {
    const home = tempDir();
    mkdirSync(join(home, 'moonpool'));
    writeFileSync(
      join(home, 'moonpool', 'init.lua'),
      "agent.on('discover_tools', function(r) r:add { name = 'mine', description = 'Mine.', run = function() return 'yes' end } end)\n",
    );
    const run = moonpool(['call', 'mine'], { XDG_CONFIG_HOME: home });
    assert.deepEqual([run.code, run.stdout], [0, 'yes\n']);
  });

  test('with no config anywhere the bundled demo runs, and stderr says so', () => {
    const run = moonpool(['list'], { XDG_CONFIG_HOME: tempDir() });
    assert.equal(run.code, 0);
    assert.match(run.stderr, /using the bundled demo/);
    assert.match(run.stdout, /^count_lines /m);
  });

  test('mcp with no config anywhere refuses the bundled demo in one line naming where it looked: exit 2', () => {
    const home = tempDir();
    const run = moonpool(['mcp'], { XDG_CONFIG_HOME: home });
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      `moonpool: no config found (--config, $MOONPOOL_CONFIG, ${join(home, 'moonpool', 'init.lua')}); mcp does not serve the bundled demo: pass --config FILE\n`,
    );
    assert.equal(run.stdout, '');
  });

  test('a --config that does not exist is a config error: exit 2', () => {
    const run = moonpool(['list', '--config', '/nonexistent/init.lua']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /config not found: \/nonexistent\/init\.lua \(from --config\)/);
  });

  test("the library's config not found names its `config` option, not the CLI's --config", async () => {
    await assert.rejects(ToolHost.start({ config: '/nonexistent/init.lua', stateDir }), {
      name: 'MoonpoolError',
      message: 'config not found: /nonexistent/init.lua (from the `config` option)',
    });
  });

  test('the library never serves the bundled demo unless it is named', async (t) => {
    const saved = { config: process.env['MOONPOOL_CONFIG'], home: process.env['XDG_CONFIG_HOME'] };
    t.after(() => {
      for (const [name, value] of [
        ['MOONPOOL_CONFIG', saved.config],
        ['XDG_CONFIG_HOME', saved.home],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    const home = tempDir();
    delete process.env['MOONPOOL_CONFIG'];
    process.env['XDG_CONFIG_HOME'] = home;
    await assert.rejects(ToolHost.start({ stateDir }), {
      name: 'MoonpoolError',
      code: 'CONFIG_NOT_FOUND',
      message: `no config found (the \`config\` option, $MOONPOOL_CONFIG, ${join(home, 'moonpool', 'init.lua')}); pass \`config\` (BUNDLED_CONFIG serves the demo)`,
    });
    const demo = await ToolHost.start({ config: BUNDLED_CONFIG, stateDir });
    try {
      assert.ok(demo.tools().some((tool) => tool.name === 'sh'));
    } finally {
      await demo.close();
    }
  });

  test('a --cwd that is not a directory is a usage error: exit 2', () => {
    const run = moonpool(['call', 'weather', '{"city":"Paris"}', '--config', seed1, '--cwd', '/nonexistent/dir']);
    assert.equal(run.code, 2, run.why);
    assert.match(run.stderr, /--cwd \/nonexistent\/dir: not a directory/);
  });

  test('a --cwd that may not be entered is a usage error: exit 2', (t) => {
    const closed = join(tempDir(), 'closed');
    mkdirSync(closed);
    const run = permissionsEnforced(process.execPath, [
      CLI,
      'call',
      'weather',
      '{"city":"Paris"}',
      '--config',
      seed1,
      '--cwd',
      closed,
      '--state-dir',
      stateDir,
    ]);
    if ('skip' in run) return t.skip(run.skip);
    chmodSync(closed, 0o000);
    try {
      const refused = spawnSync(run.command, run.args, {
        encoding: 'utf8',
        env: { ...process.env, MOONPOOL_CONFIG: '' },
      });
      assert.equal(refused.status, 2, refused.stderr);
      assert.ok(
        refused.stderr.startsWith(`moonpool: --cwd ${closed}: cannot be entered (EACCES); see `),
        refused.stderr,
      );
    } finally {
      chmodSync(closed, 0o755);
    }
  });
});

test('Ctrl-C (SIGINT) cancels a call and exits 130, leaving no process behind', { timeout: 60_000 }, async () => {
  const seconds = uniqueSeconds();
  const child = spawn(
    process.execPath,
    [
      CLI,
      'call',
      'sh',
      JSON.stringify({ command: `sleep ${seconds}` }),
      '--config',
      join(EXAMPLES, 'demo'),
      '--state-dir',
      stateDir,
    ],
    {
      env: { ...process.env, MOONPOOL_CONFIG: '' },
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // The sleep itself, not the moonpool command whose arguments name it.
  const sleeping = (): string[] => liveProcesses(`sleep ${seconds}`).filter((line) => !line.includes('"command"'));
  assert.ok(await eventually(() => sleeping().length > 0, 30_000), 'the command never started');
  child.kill('SIGINT');
  assert.equal(await exited, 130);
  assert.ok(await eventually(() => sleeping().length === 0), sleeping().join('\n'));
});

test(
  'a reader that goes away (replay | head -1) ends the command quietly, with its own exit code',
  { timeout: 60_000 },
  async () => {
    const demo = join(EXAMPLES, 'demo', 'init.lua');
    const session = '20261201-000000-e1e1e1';
    // Three results of 45 KB each: more than a pipe holds, so the replay is still writing when the reader leaves.
    for (let i = 0; i < 3; i++) {
      assert.equal(
        moonpool([
          'call',
          'sh',
          JSON.stringify({ command: "yes 'a line of thirty characters.' | head -1500" }),
          '--config',
          demo,
          '--session',
          session,
        ]).code,
        0,
      );
    }
    const child = spawn(
      process.execPath,
      [CLI, 'replay', session, '--expand', '--config', demo, '--state-dir', stateDir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.once('exit', resolve));
    assert.deepEqual([code, stderr], [0, '']);
  },
);
