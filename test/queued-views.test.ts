// A queued call says so in every view: the dashboard's block and `moonpool call`'s live block show
// `queued #N` until a worker takes the call, then run as usual; over MCP, progress notifications
// say `queued #N` (progress -N), then `running` (progress 0).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { LiveBlock } from '../ui/live-block.js';
import { CLI, eventually, startHost, tempDir } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

/** A config whose `wait` tool prints `started`, then waits until its gate file exists. */
function waiterConfig(): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'init.lua');
  writeFileSync(
    file,
    `local function exists(path) local file = io.open(path) if file then file:close() end return file ~= nil end
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'wait',
    description = 'Waits for its gate file.',
    parameters = { type = 'object', properties = { gate = { type = 'string' } }, required = { 'gate' } },
    run = function(args)
      print('started')
      while not exists(args.gate) do capture('sleep 0.02') end
      return 'through ' .. args.gate:match('[^/]+$')
    end,
  }
end)
`,
  );
  return { dir, file };
}

test('the dashboard shows a call queued behind a busy module, then running', async () => {
  const { dir, file } = waiterConfig();
  const host = await startHost(file, { maxThreadsPerModule: 1 });
  const { dashboard, terminal, screen } = virtualDashboard(host, 100, 30);
  terminal.type(`wait {"gate": "${join(dir, 'a')}"}\r`);
  assert.ok(await eventually(() => screen().includes('started'), 30_000), screen());
  terminal.type(`wait {"gate": "${join(dir, 'b')}"}\r`);
  assert.ok(
    await eventually(() => screen().includes('queued #1') && screen().includes('waiting for a worker…'), 30_000),
    screen(),
  );
  writeFileSync(join(dir, 'a'), '');
  assert.ok(await eventually(() => screen().includes('through a') && !screen().includes('queued'), 30_000), screen());
  writeFileSync(join(dir, 'b'), '');
  assert.ok(await eventually(() => screen().includes('through b'), 30_000), screen());
  await dashboard.quit();
});

test("`moonpool call`'s live block shows the call queued, then running", async () => {
  const { dir, file } = waiterConfig();
  const host = await startHost(file, { maxThreadsPerModule: 1 });
  let printed = false;
  const first = host.call('wait', { gate: join(dir, 'a') }, { onLog: () => (printed = true) });
  assert.ok(await eventually(() => printed, 30_000));
  const terminal = { columns: 60, written: '', write: (text: string) => (terminal.written += text) };
  const live = new LiveBlock(terminal, host, 'wait');
  const second = host.call(
    'wait',
    { gate: join(dir, 'b') },
    {
      onQueued: (place) => live.setQueued(place),
      onStart: () => live.setQueued(undefined),
      onLog: (text) => live.log(text),
    },
  );
  assert.ok(
    await eventually(() => /wait {2}queued #1 {2}\d/.test(terminal.written), 30_000),
    JSON.stringify(terminal.written),
  );
  const queuedUntil = terminal.written.length;
  writeFileSync(join(dir, 'a'), '');
  assert.ok(
    await eventually(() => terminal.written.includes('started\n', queuedUntil), 30_000),
    JSON.stringify(terminal.written),
  );
  writeFileSync(join(dir, 'b'), '');
  await Promise.all([first, second]);
  live.finish();
  // Drawn after the call started: its headers no longer say queued.
  const lastHeader =
    terminal.written
      .slice(queuedUntil)
      .match(/[^\n\r]*wait {2}[^\n]*/g)
      ?.at(-1) ?? '';
  assert.ok(lastHeader !== '' && !lastHeader.includes('queued'), JSON.stringify(terminal.written.slice(queuedUntil)));
});

test('over MCP, a queued call sends queued #N at progress -N, then running at 0, then its result', async () => {
  const { dir, file } = waiterConfig();
  // moonpool's default workers per module: min(4, CPUs).
  const workers = Math.min(4, availableParallelism());
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--config', file, '--state-dir', join(dir, 'state'), '--cwd', dir],
    env: { ...process.env, MOONPOOL_CONFIG: '' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'moonpool-queue-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const gates = Array.from({ length: workers + 1 }, (_, i) => join(dir, `gate${i}`));
    const progress: Progress[][] = gates.map(() => []);
    const calls = gates.map((gate, i) =>
      client.callTool({ name: 'wait', arguments: { gate } }, CallToolResultSchema, {
        onprogress: (update) => progress[i]!.push(update),
      }),
    );
    const last = progress[workers]!;
    assert.ok(await eventually(() => last.length > 0, 30_000));
    assert.deepEqual(last, [{ progress: -1, message: 'queued #1' }]);
    writeFileSync(gates[0]!, '');
    assert.ok(await eventually(() => last.length > 1, 30_000), JSON.stringify(last));
    assert.deepEqual(last, [
      { progress: -1, message: 'queued #1' },
      { progress: 0, message: 'running' },
    ]);
    for (const gate of gates) writeFileSync(gate, '');
    const results = await Promise.all(calls);
    assert.deepEqual(
      results.map((result) => (result.content as { text: string }[])[0]!.text),
      gates.map((_, i) => `through gate${i}`),
    );
    assert.ok(
      progress.slice(0, workers).every((updates) => updates.length === 0),
      JSON.stringify(progress),
    );
  } finally {
    await client.close();
  }
});
