// moonpool's tools inside pi (`moonpool/pi`), against the real pi package: the extension loaded
// from a user's extension file by pi's own resource loader, turns scripted with pi-ai's faux
// provider, and pi's own tool row (ToolExecutionComponent) drawn at 60 columns.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fauxAssistantMessage, fauxToolCall } from '@mariozechner/pi-ai';
import { visibleWidth } from '@mariozechner/pi-tui';
import {
  DefaultPackageManager,
  SettingsManager,
  type AgentSessionEvent,
  type ExtensionFactory,
  type ToolExecutionComponent,
} from '@mariozechner/pi-coding-agent';
import moonpoolExtension from '../pi/index.js';
import { withoutPatterns } from '../pi/pi-schema.js';
import { CLI, eventually, liveProcesses, ROOT, tempDir, uniqueSeconds } from './helpers.js';
import { openPiSession, PI_FIXTURES, runPiPrint, toolRow, USER_EXTENSION, type PiSession } from './pi-session.js';

const CONFIG = join(PI_FIXTURES, 'init.lua');
process.env['MOONPOOL_CONFIG'] = CONFIG;
process.env['XDG_STATE_HOME'] = tempDir('moonpool-pi-state-');

// pi's extension factory type accepts moonpool's: checked when the tests compile.
const asPiExtension: ExtensionFactory = moonpoolExtension;

type ToolEnd = Extract<AgentSessionEvent, { type: 'tool_execution_end' }>;
type ToolUpdate = Extract<AgentSessionEvent, { type: 'tool_execution_update' }>;

const isEnd =
  (toolCallId: string) =>
  (event: AgentSessionEvent): event is ToolEnd =>
    event.type === 'tool_execution_end' && event.toolCallId === toolCallId;
/** An update that carries a state (the first ones may carry only the title). */
const isStateUpdate =
  (toolCallId: string) =>
  (event: AgentSessionEvent): event is ToolUpdate =>
    event.type === 'tool_execution_update' &&
    event.toolCallId === toolCallId &&
    typeof (event.partialResult as { details?: { snapshot?: unknown } }).details?.snapshot === 'string';

/** A tool result's text, as the model gets it (pi types results loosely). */
function textOf(result: unknown): string {
  return (result as { content: { text?: string }[] }).content.map((block) => block.text ?? '').join('\n');
}

async function ended(session: PiSession, toolCallId: string): Promise<ToolEnd> {
  return (await session.nextEvent(isEnd(toolCallId))) as ToolEnd;
}

function assertFits(lines: string[], width: number): void {
  for (const line of lines)
    assert.ok(
      visibleWidth(line) <= width,
      `a line is ${visibleWidth(line)} columns wide, over ${width}: ${JSON.stringify(line)}`,
    );
}

type RowResult = Parameters<ToolExecutionComponent['updateResult']>[0];

/** A result as pi's row takes it (pi's events type results loosely). */
function rowResult(result: unknown, isError = false): RowResult {
  return { ...(result as Omit<RowResult, 'isError'>), isError };
}

/** The row's lines with pi's colours taken out. */
function plain(lines: string[]): string {
  // eslint-disable-next-line no-control-regex -- pi's theme colours are escape sequences
  return lines.map((line) => line.replace(/\x1b\[[0-9;]*m/g, '').trimEnd()).join('\n');
}

test('the extension is a pi extension factory', () => {
  assert.equal(typeof asPiExtension, 'function');
});

test("docs/pi.md's setup is the one-file extension the tests load", () => {
  const page = readFileSync(join(ROOT, 'docs', 'pi.md'), 'utf8');
  const userFile = readFileSync(USER_EXTENSION, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('//'))
    .join('\n')
    .trim();
  assert.ok(page.includes(userFile), `docs/pi.md does not show ${userFile}`);
  assert.match(page, /pi -e /);
});

test('every available tool is registered under its own name with its schema; unavailable ones are left out', async () => {
  const session = await openPiSession();
  const names = session.runtime.session.getAllTools().map((tool) => tool.name);
  for (const name of ['progress', 'wide', 'plain', 'fails', 'hangs'])
    assert.ok(names.includes(name), `${name} is not registered`);
  assert.ok(!names.includes('withheld'));
  const progress = session.runtime.session.getToolDefinition('progress');
  assert.deepEqual((progress?.parameters as { required: string[] }).required, ['total', 'gate']);
  // pi checks arguments with backtracking regular expressions; moonpool checks patterns in RE2.
  assert.deepEqual((progress?.parameters as { properties: Record<string, object> }).properties['code'], {
    type: 'string',
  });
  assert.deepEqual(session.notices, []);
});

test("parallel calls stream each state through onUpdate, end with moonpool call's exact text, and draw the Lua render in pi's row", async () => {
  const session = await openPiSession();
  const gate = join(tempDir(), 'gate');
  const turn = session.prompt([
    fauxAssistantMessage(
      [fauxToolCall('progress', { total: 6, gate }, { id: 'p1' }), fauxToolCall('plain', { name: 'pi' }, { id: 'p2' })],
      { stopReason: 'toolUse' },
    ),
  ]);

  const update = (await session.nextEvent(isStateUpdate('p1'))) as ToolUpdate;
  const { row, redrawn } = toolRow(session, 'progress', { total: 6, gate });
  row.updateResult(rowResult(update.partialResult), true);
  const arrived = redrawn();
  assertFits(row.render(60), 60);
  await arrived;
  const partial = row.render(60);
  assertFits(partial, 60);
  assert.match(plain(partial), /counting to 6/);
  assert.match(plain(partial), /3 \/ 6 at width 58/);
  assert.match(plain(partial), /\[#{28}\.{28}\]/);

  writeFileSync(gate, '');
  const [progress, hello] = await Promise.all([ended(session, 'p1'), ended(session, 'p2')]);
  await turn;
  assert.equal(progress.isError, false);
  assert.equal(textOf(progress.result), 'counted to 6');
  const cli = spawnSync(process.execPath, [CLI, 'call', 'plain', '{"name":"pi"}', '--config', CONFIG], {
    encoding: 'utf8',
  });
  assert.equal(textOf(hello.result), cli.stdout.replace(/\n$/, ''));

  row.updateResult(rowResult(progress.result), false);
  const finalArrived = redrawn();
  row.render(60);
  await finalArrived;
  const final = row.render(60);
  assertFits(final, 60);
  assert.match(plain(final), /6 \/ 6 at width 58/);
  assert.match(plain(final), /\[#{56}\]/);

  row.setExpanded(true);
  const expandedArrived = redrawn();
  row.render(60);
  await expandedArrived;
  assert.match(plain(row.render(60)), /step 6/);
});

test('a render wider than the row is cut by display columns, wide characters counting two, and its escapes removed', async () => {
  const session = await openPiSession();
  await session.prompt([fauxAssistantMessage([fauxToolCall('wide', {}, { id: 'w1' })], { stopReason: 'toolUse' })]);
  const end = await ended(session, 'w1');
  for (const width of [60, 9, 4]) {
    const { row, redrawn } = toolRow(session, 'wide', {});
    row.updateResult(rowResult(end.result), false);
    const arrived = redrawn();
    assertFits(row.render(width), width);
    await arrived;
    const lines = row.render(width);
    assertFits(lines, width);
    assert.ok(
      !lines.some((line) => line.includes('\x1b[2J') || line.includes('\x1b]0;')),
      'a terminal escape from render reached pi',
    );
    if (width === 60) {
      assert.match(plain(lines), /界界界/);
      row.setExpanded(true);
      const expanded = redrawn();
      row.render(width);
      await expanded;
      assert.match(plain(row.render(width)), /cleared/);
    }
  }
});

test('a tool without render shows the text moonpool gives the model', async () => {
  const session = await openPiSession();
  await session.prompt([fauxAssistantMessage([fauxToolCall('plain', {}, { id: 'n1' })], { stopReason: 'toolUse' })]);
  const end = await ended(session, 'n1');
  const { row, redrawn } = toolRow(session, 'plain', {});
  row.updateResult(rowResult(end.result), false);
  const arrived = redrawn();
  row.render(60);
  await arrived;
  assert.match(plain(row.render(60)), /hello world/);
});

test("the row's first line names the tool and what it may touch, cut to the row's width", async () => {
  const session = await openPiSession();
  await session.prompt([fauxAssistantMessage([fauxToolCall('plain', {}, { id: 'h1' })], { stopReason: 'toolUse' })]);
  const end = await ended(session, 'h1');
  for (const [tool, access] of [
    ['plain', 'read: .; write: none; exec: none; env: HOME'],
    ['wide', 'full access (declares no permissions)'],
  ] as const) {
    const { row } = toolRow(session, tool, {});
    row.updateResult(rowResult(end.result), false);
    assert.equal(
      plain(row.render(60))
        .split('\n')
        .find((line) => line.trim() !== ''),
      ` ${tool}  ${access}`,
    );
    const narrow = row.render(16);
    assertFits(narrow, 16);
    assert.match(plain(narrow), new RegExp(`^ ${tool}  \\S.*…$`, 'm'));
  }
});

test('a running tool without render shows the last lines it printed', async () => {
  const session = await openPiSession();
  const gate = join(tempDir(), 'gate');
  const turn = session.prompt([
    fauxAssistantMessage([fauxToolCall('talks', { gate }, { id: 't1' })], { stopReason: 'toolUse' }),
  ]);
  const update = (await session.nextEvent(
    (event) =>
      event.type === 'tool_execution_update' &&
      event.toolCallId === 't1' &&
      JSON.stringify((event.partialResult as { details?: unknown }).details).includes('line 4'),
  )) as ToolUpdate;
  const { row } = toolRow(session, 'talks', { gate });
  row.updateResult(rowResult(update.partialResult), true);
  const lines = plain(row.render(60));
  assert.match(lines, /line 2\n.*line 3\n.*line 4/);
  assert.doesNotMatch(lines, /line 1/);
  writeFileSync(gate, '');
  await turn;
  assert.equal(textOf((await ended(session, 't1')).result), 'talked');
});

test("arguments pi would convert (7 for a string) reach moonpool as the model wrote them: moonpool call's answer", async () => {
  const session = await openPiSession();
  await session.prompt([
    fauxAssistantMessage([fauxToolCall('plain', { name: 7 }, { id: 'c1' })], { stopReason: 'toolUse' }),
  ]);
  const end = (await ended(session, 'c1')) as { result: { content: { text: string }[] }; isError: boolean };
  assert.deepEqual(
    end.result.content.map((part) => part.text),
    ['plain: invalid arguments, run was not called:\nargs.name: must be string'],
  );
  assert.equal(end.isError, true);
});

test('a failing tool is an error result in pi, and its row still draws the last state', async () => {
  const session = await openPiSession();
  await session.prompt([fauxAssistantMessage([fauxToolCall('fails', {}, { id: 'f1' })], { stopReason: 'toolUse' })]);
  const end = await ended(session, 'f1');
  assert.equal(end.isError, true);
  assert.match(textOf(end.result), /init\.lua:\d+: the fixture failed on purpose/);
  const message = session.runtime.session.messages.find(
    (entry) => entry.role === 'toolResult' && entry.toolCallId === 'f1',
  );
  assert.equal(message?.role === 'toolResult' && message.isError, true);
  const { row, redrawn } = toolRow(session, 'fails', {});
  row.updateResult(rowResult(end.result, true), false);
  const arrived = redrawn();
  row.render(60);
  await arrived;
  const lines = plain(row.render(60));
  assert.match(lines, /failed at 1 of 4/);
  assert.match(lines, /error/);
});

test('an aborted turn cancels the call and ends its processes at once', async () => {
  const session = await openPiSession();
  const seconds = uniqueSeconds();
  const turn = session.prompt([
    fauxAssistantMessage([fauxToolCall('hangs', { seconds }, { id: 'h1' })], { stopReason: 'toolUse' }),
  ]);
  await session.nextEvent(isStateUpdate('h1'));
  assert.ok(await eventually(() => liveProcesses(`sleep ${seconds}`).length > 0), 'the command never started');
  const abortedAt = performance.now();
  await session.runtime.session.abort();
  const end = await ended(session, 'h1');
  await turn;
  // Cut off, not waited for: a tenth of the sleep is far more than any machine needs.
  const tookMs = performance.now() - abortedAt;
  assert.ok(tookMs < (Number(seconds) * 1000) / 10, `the abort took ${Math.round(tookMs)} ms`);
  assert.equal(end.isError, true);
  assert.equal(textOf(end.result), 'hangs: cancelled');
  assert.ok(
    await eventually(() => liveProcesses(`sleep ${seconds}`).length === 0),
    'the command outlived the aborted call',
  );
});

test('arguments a backtracking pattern would hang on are refused by moonpool at once', async () => {
  const session = await openPiSession();
  const code = `${'a'.repeat(40)}!`;
  await session.prompt([
    fauxAssistantMessage([fauxToolCall('progress', { total: 1, gate: '/nonexistent', code }, { id: 'r1' })], {
      stopReason: 'toolUse',
    }),
  ]);
  // A backtracking match of it would not end for hours; this one must end at all.
  const end = await ended(session, 'r1');
  assert.equal(end.isError, true);
  assert.match(textOf(end.result), /progress: invalid arguments, run was not called:\nargs\.code: /);
});

test('a resumed session re-renders each row from the details pi saved as JSON', async () => {
  const sessionDir = tempDir();
  const first = await openPiSession({ sessionDir });
  const gate = join(tempDir(), 'gate');
  writeFileSync(gate, '');
  await first.prompt([
    fauxAssistantMessage([fauxToolCall('progress', { total: 4, gate }, { id: 'r1' })], { stopReason: 'toolUse' }),
  ]);
  const file = first.runtime.session.sessionFile!;
  await first.close();
  const saved = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as { message?: { role: string; toolCallId?: string; details?: { snapshot?: unknown } } },
    );
  const record = saved.find(
    (entry) => entry.message?.role === 'toolResult' && entry.message.toolCallId === 'r1',
  )?.message;
  assert.equal(typeof record?.details?.snapshot, 'string');

  const resumed = await openPiSession({ sessionFile: file });
  const message = resumed.runtime.session.messages.find(
    (entry) => entry.role === 'toolResult' && entry.toolCallId === 'r1',
  );
  assert.ok(message?.role === 'toolResult');
  const { row, redrawn } = toolRow(resumed, 'progress', { total: 4, gate });
  row.updateResult(
    rowResult({ content: message.content, details: message.details as unknown }, message.isError),
    false,
  );
  const arrived = redrawn();
  row.render(60);
  await arrived;
  assert.match(plain(row.render(60)), /4 \/ 4 at width 58/);
});

test('details damaged in a saved session show the recorded text instead of failing the row', async () => {
  const session = await openPiSession();
  for (const details of [
    { moonpool: 1, status: 'ok', snapshot: '!!not base64 msgpack!!' },
    { moonpool: 1, status: 'ok', snapshot: 42 },
    { moonpool: 1, status: 'exploded' },
    null,
    'text',
  ]) {
    const { row, redrawn } = toolRow(session, 'progress', {});
    row.updateResult(rowResult({ content: [{ type: 'text', text: 'counted to 4' }], details }), false);
    const first = row.render(60);
    if (typeof details === 'object' && details !== null && typeof details.snapshot === 'string') {
      const arrived = redrawn();
      await arrived;
    }
    const lines = row.render(60);
    assertFits([...first, ...lines], 60);
    assert.match(plain(lines), /counted to 4/);
  }
});

test("pi's print mode exits by itself after a turn: session_shutdown closes the host", { timeout: 60_000 }, () => {
  const agentDir = tempDir();
  const run = runPiPrint({
    PI_CODING_AGENT_DIR: agentDir,
    MOONPOOL_FAUX_SCRIPT: JSON.stringify([{ tool: 'plain', args: { name: 'print mode' } }]),
  });
  assert.equal(run.signal, null, `pi did not exit by itself: ${run.stderr}`);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /the tool said: hello print mode/);
});

test('a config that fails to load is reported through pi, and pi still starts', { timeout: 60_000 }, () => {
  const broken = join(tempDir(), 'init.lua');
  writeFileSync(broken, "agent.on('discover_tools', function(registry)\n  registry:add { name = 'x' \nend)\n");
  const run = runPiPrint({ MOONPOOL_CONFIG: broken, MOONPOOL_FAUX_SCRIPT: '[]' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, new RegExp(`moonpool: .*init\\.lua:3: `));
  assert.ok(existsSync(broken));
});

test('pi keeps the session history $MOONPOOL_KEEP_SESSIONS asks for, as the CLI does', { timeout: 60_000 }, () => {
  const stateHome = tempDir();
  const oldLog = join(stateHome, 'moonpool', 'sessions', '20260101-000000-aaaaaa.log');
  mkdirSync(dirname(oldLog), { recursive: true });
  writeFileSync(oldLog, '');
  const long = new Date(Date.now() - 90 * 86_400_000);
  utimesSync(oldLog, long, long);
  const run = runPiPrint({ XDG_STATE_HOME: stateHome, MOONPOOL_KEEP_SESSIONS: 'forever', MOONPOOL_FAUX_SCRIPT: '[]' });
  assert.equal(run.status, 0, run.stderr);
  assert.ok(existsSync(oldLog), 'the 90-day-old session was removed');
});

test(
  "with no config of the user's, pi gets no moonpool tools (not the demo) and is told where the config was looked for",
  { timeout: 60_000 },
  () => {
    const configHome = tempDir();
    const run = runPiPrint({
      MOONPOOL_CONFIG: '',
      XDG_CONFIG_HOME: configHome,
      MOONPOOL_FAUX_SCRIPT: JSON.stringify([{ tool: 'sh', args: { command: 'echo reached' } }]),
    });
    assert.equal(run.status, 0, run.stderr);
    assert.ok(
      run.stderr.includes(
        `moonpool: no config found ($MOONPOOL_CONFIG, ${join(configHome, 'moonpool', 'init.lua')}); no moonpool tools are registered`,
      ),
      run.stderr,
    );
    assert.match(run.stdout, /the tool said: Tool sh not found/);
  },
);

test("a config with a Lua error is a notice in pi's UI, and pi starts without those tools", async () => {
  const broken = join(tempDir(), 'init.lua');
  writeFileSync(broken, "agent.on('discover_tools', function(registry)\n  error('broken on purpose')\nend)\n");
  process.env['MOONPOOL_CONFIG'] = broken;
  try {
    const session = await openPiSession();
    assert.deepEqual(
      session.runtime.session.getAllTools().filter((tool) => tool.name === 'progress'),
      [],
    );
    assert.equal(session.notices.length, 1);
    assert.match(session.notices[0]!, /^moonpool: .*init\.lua:2: .*broken on purpose/);
  } finally {
    process.env['MOONPOOL_CONFIG'] = CONFIG;
  }
});

test('the schema pi checks keeps every keyword but the patterns, and property names that look like keywords', () => {
  const schema = {
    type: 'object',
    properties: {
      pattern: { type: 'string', pattern: '^(a+)+$' },
      tags: { type: 'object', patternProperties: { '^x-': { type: 'string' } }, additionalProperties: false },
      mode: { enum: [{ pattern: 'data, not a keyword' }], default: { pattern: 'kept' } },
      list: { type: 'array', items: [{ type: 'string', pattern: 'a*' }], prefixItems: [{ pattern: 'b' }] },
    },
    anyOf: [{ properties: { code: { pattern: 'c' } } }],
    $defs: { id: { type: 'string', pattern: '^[0-9]+$', minLength: 1 } },
  };
  const proto = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","pattern":"x"}}}') as object;
  assert.deepEqual(withoutPatterns(schema), {
    type: 'object',
    properties: {
      pattern: { type: 'string' },
      tags: { type: 'object' },
      mode: { enum: [{ pattern: 'data, not a keyword' }], default: { pattern: 'kept' } },
      list: { type: 'array', items: [{ type: 'string' }], prefixItems: [{}] },
    },
    anyOf: [{ properties: { code: {} } }],
    $defs: { id: { type: 'string', minLength: 1 } },
  });
  const loosened = withoutPatterns(proto) as { properties: object };
  assert.deepEqual(Object.keys(loosened.properties), ['__proto__']);
  assert.equal(Object.getPrototypeOf(loosened.properties), Object.prototype);
});

test("pi's own install route finds the extension: package.json's pi manifest names it", async () => {
  // `pi install /path/to/moonpool` adds the directory as a package; pi then loads what this resolves.
  const agentDir = tempDir();
  const packages = new DefaultPackageManager({
    cwd: agentDir,
    agentDir,
    settingsManager: SettingsManager.create(agentDir, agentDir),
  });
  const resolved = await packages.resolveExtensionSources([ROOT]);
  assert.deepEqual(
    resolved.extensions.map((extension) => extension.path),
    [join(ROOT, 'dist', 'pi', 'index.js')],
  );
  const loaded = (await import(resolved.extensions[0]!.path)) as { default: unknown };
  assert.equal(loaded.default, moonpoolExtension);
});
