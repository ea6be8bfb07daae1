// Nothing a tool hands the host is unbounded: states, results, titles, errors, log lines, render
// output and definitions are measured while they are read from Lua (a shared sub-table counts each
// time it is reached) and refused or cut at a documented limit, while a healthy tool of the same
// module keeps answering.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { decodeMsgpack } from '../core/msgpack-codec.js';
import { FIXTURES, startHost, tempDir } from './helpers.js';

const FILE = join(FIXTURES, 'crossing', 'init.lua');
const VIEW = { width: 60, height: 10, expand: false };
const MIB = 1024 * 1024;
/** The config builds large values at load: give a loaded machine time for it. */
const crossingHost = (): ReturnType<typeof startHost> => startHost('crossing', { loadTimeoutMs: 30_000 });

/** Calls `echo` a few times while `attack` runs; every answer must be its own text. */
async function besideHealthy<T>(host: Awaited<ReturnType<typeof startHost>>, attack: Promise<T>): Promise<T> {
  const echoes = Promise.all([1, 2, 3].map(async (i) => (await host.call('echo', { text: `healthy ${i}` })).content));
  const [result, answers] = await Promise.all([attack, echoes]);
  assert.deepEqual(answers, ['healthy 1', 'healthy 2', 'healthy 3']);
  return result;
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

describe('ctx:show', () => {
  test('a 12-level DAG over a 100 KB string (410 MB expanded) is refused at its ctx:show line, and host memory stays small', async () => {
    const host = await crossingHost();
    await host.call('echo', { text: 'warm' });
    const rss = process.memoryUsage().rss;
    const result = await besideHealthy(host, host.call('dag_state', {}));
    assert.equal(result.status, 'error');
    assert.equal(firstLine(result.content), `${FILE}:31: ctx:show: state too large (more than 16 MiB encoded)`);
    assert.equal(result.snapshot, undefined);
    const grown = (process.memoryUsage().rss - rss) / MIB;
    assert.ok(grown < 100, `RSS grew by ${Math.round(grown)} MiB`);
  });

  test('a DAG state taken at the end of the call is refused there, and the state shown before it is kept', async () => {
    const host = await crossingHost();
    const result = await besideHealthy(host, host.call('dag_later', {}));
    assert.equal(result.status, 'error');
    // Shown within 33 ms of the first state, the DAG waits and is refused at the call's end; on a
    // machine slow enough to take longer between the two shows, it is refused at its own line.
    const refusal = 'ctx:show: state too large (more than 16 MiB encoded)';
    assert.ok([refusal, `${FILE}:40: ${refusal}`].includes(firstLine(result.content)), result.content);
    assert.deepEqual(decodeMsgpack(result.snapshot!), { step: 1 });
  });

  test('a 15 MiB state crosses and renders; a 17 MiB one is refused at its ctx:show line', async () => {
    // Rendering 15 MiB is the point here, not how fast: the dashboard's budget would cut it on a loaded machine.
    const host = await startHost('crossing', { loadTimeoutMs: 30_000, renderBudgetMs: 600_000 });
    const fits = await besideHealthy(host, host.call('big_state', { mib: 15 }));
    assert.equal(fits.status, 'ok');
    assert.deepEqual(await host.render('big_state', fits.snapshot!, VIEW), {
      ok: true,
      lines: [`blob of ${15 * MIB} bytes`],
    });
    const over = await besideHealthy(host, host.call('big_state', { mib: 17 }));
    assert.equal(firstLine(over.content), `${FILE}:49: ctx:show: state too large (more than 16 MiB encoded)`);
  });
});

describe('results, titles, errors and log lines', () => {
  test('a 17 MiB result is refused naming the limit; a 15 MiB one is spilled whole', async () => {
    const host = await crossingHost();
    const over = await besideHealthy(host, host.call('big_result', { mib: 17 }));
    assert.equal(over.status, 'error');
    assert.equal(
      over.content,
      'run returned a result of 17,825,792 bytes, more than the 16 MiB a result may hold; write large output to a file in ctx.spill_dir and return a summary',
    );
    const fits = await besideHealthy(host, host.call('big_result', { mib: 15 }));
    assert.equal(fits.status, 'ok');
    assert.equal(readFileSync(fits.spillPath!).length, 15 * MIB);
  });

  test('a 100 MB title is refused at its ctx:title line', async () => {
    const host = await crossingHost();
    const result = await besideHealthy(host, host.call('huge_title', {}));
    assert.equal(result.status, 'error');
    assert.equal(firstLine(result.content), `${FILE}:66: ctx:title: title too long (more than 1024 bytes)`);
    assert.equal(result.title, undefined);
  });

  test('a 100 MB error string and a 20 MB __tostring are cut at 64 KiB with a note', async () => {
    const host = await crossingHost();
    for (const args of [{}, { object: true }]) {
      const result = await besideHealthy(host, host.call('huge_error', args));
      assert.equal(result.status, 'error');
      const whole = readFileSync(result.spillPath!, 'utf8');
      const cut = whole.indexOf('\n[moonpool: error message cut at 65536 of its ');
      // Cut at 64 KiB of Lua's text; a chunk name Lua shortened (a deep clone) is then written whole.
      const expandedBy = FILE.length > 60 ? FILE.length : 0;
      assert.ok(cut >= 65536 && cut <= 65536 + expandedBy, `the note is at ${cut}`);
      assert.ok(whole.length < 70_000, `${whole.length} characters reached the host`);
    }
  });

  test('a 40 MB log line is dropped, counted in the last line, and the next line still arrives', async () => {
    const host = await crossingHost();
    const lines: string[] = [];
    const result = await besideHealthy(host, host.call('huge_log', {}, { onLog: (line) => lines.push(line) }));
    assert.equal(result.content, 'printed');
    assert.deepEqual(lines, [
      'after',
      "[moonpool: 1 more lines (40,000,000 characters) of this call's log were dropped past its 1,000,000-character limit]",
    ]);
  });

  test('render output past 4 MiB (one 100 KB line reached 200 times) is refused as the render reason', async () => {
    // The size is the point here, not the time: a budget no loaded machine reaches.
    const host = await startHost('crossing', { loadTimeoutMs: 30_000, renderBudgetMs: 600_000 });
    const shown = await host.call('huge_render', {});
    assert.deepEqual(await host.render('huge_render', shown.snapshot!, VIEW), {
      ok: false,
      reason: 'render returned more than 4 MiB of lines',
    });
    assert.deepEqual(await host.render('big_state', (await host.call('big_state', { mib: 0.001 })).snapshot!, VIEW), {
      ok: true,
      lines: ['blob of 1048 bytes'],
    });
  });
});

test("moonpool's natives are out of a tool's reach through debug.getupvalue", async () => {
  const host = await crossingHost();
  const result = await besideHealthy(host, host.call('native_bypass', {}));
  assert.equal(result.content, 'no natives found');
});

describe('registry:add', () => {
  test('a DAG in parameters and a 2 MiB description are diagnostics naming the limit at their fields, and the other tools load', async () => {
    const host = await crossingHost();
    const tooLarge = host
      .diagnostics()
      .filter((diagnostic) => diagnostic.message.includes('definition too large (more than 1 MiB encoded)'));
    assert.deepEqual(
      tooLarge.map((diagnostic) => [diagnostic.tool, diagnostic.line]),
      [
        ['dag_parameters', 106],
        ['huge_description', 111],
      ],
    );
    assert.ok(host.tools().some((tool) => tool.name === 'echo'));
    assert.ok(!host.tools().some((tool) => tool.name === 'dag_parameters' || tool.name === 'huge_description'));
  });

  test('past 10,000 registry:add calls the rest are not read, with a diagnostic saying how many', async () => {
    const host = await startHost('many-tools', { loadTimeoutMs: 60_000 });
    const messages = host.diagnostics().map((diagnostic) => diagnostic.message);
    assert.ok(
      messages.includes('2,001 of 12,001 tool definitions were not read: a config may define at most 10,000 tools'),
      messages.slice(0, 3).join('\n'),
    );
    assert.equal(host.tools().length, 10_000);
    assert.equal((await host.call('echo', { text: 'still here' })).content, 'still here');
  });
});

test('a refused state the tool catches with pcall does not fail the call; one nobody raised does', async () => {
  const file = join(tempDir(), 'init.lua');
  writeFileSync(
    file,
    `agent.on('discover_tools', function(registry)
  registry:add { name = 'recover', description = 'Shows a bad state, catches it, then shows a good one.', run = function(args, ctx)
    local ok = pcall(ctx.show, ctx, { cb = print })
    ctx:show { progress = 'fine' }
    return 'recovered ' .. tostring(ok)
  end }
  registry:add { name = 'last_bad', description = 'Ends with a bad state shown.', run = function(args, ctx)
    ctx:show { cb = print }
    return 'never'
  end }
  registry:add { name = 'left_bad', description = 'Shows a bad state past the first, then returns.', run = function(args, ctx)
    ctx:show { step = 1 }
    ctx:show { cb = print }
    return 'returned'
  end }
end)
`,
  );
  const host = await startHost(file);
  const recovered = await host.call('recover', {});
  assert.deepEqual([recovered.status, recovered.content], ['ok', 'recovered false']);
  assert.deepEqual(decodeMsgpack(recovered.snapshot!), { progress: 'fine' });
  const last = await host.call('last_bad', {});
  assert.equal(last.status, 'error');
  assert.match(last.content, /ctx:show: state\.cb is a function/);
  const left = await host.call('left_bad', {});
  assert.equal(left.status, 'error');
  assert.match(left.content, /state\.cb is a function/);
});

test('a result whose fields raise an error when read fails its own call only: the next call on the worker runs', async () => {
  const dir = tempDir('moonpool-strict-');
  writeFileSync(
    join(dir, 'init.lua'),
    `local function strict(t)
  return setmetatable(t, { __index = function(_, k) error('no field ' .. tostring(k), 2) end })
end
agent.on('discover_tools', function(registry)
  registry:add { name = 'strict', description = 'A strict table as its result.', run = function() return strict({ content = 'strict ok' }) end }
  registry:add { name = 'plain', description = 'Answers.', run = function() print('plain ran') return 'plain ok' end }
end)
`,
  );
  const host = await startHost(join(dir, 'init.lua'), { maxThreadsPerModule: 1 });
  const strict = await host.call('strict', {});
  assert.equal(strict.status, 'error');
  assert.match(strict.content, /no field/);
  for (let i = 0; i < 2; i++) {
    const logs: string[] = [];
    const plain = await host.call('plain', {}, { onLog: (text) => logs.push(text) });
    assert.deepEqual([plain.status, plain.content, logs], ['ok', 'plain ok', ['plain ran']]);
  }
});
