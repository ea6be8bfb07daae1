// ToolHost.close() and reload() as a host author meets them: close cancels a reload under way
// instead of waiting for the config's load, a second close resolves with the first, a `reload`
// listener that throws does not make reload() throw (the reload has happened), and a render in
// flight when a reload takes over still renders.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ToolHost } from '../core/index.js';
import { tempDir } from './helpers.js';

const TOOLS = `agent.on('discover_tools', function(registry)
  registry:add { name = 'spin', description = 'Loops until stopped.', run = function() while true do end end }
  registry:add { name = 'echo', description = 'Echoes.', run = function(args) return args.text end }
end)
`;

async function hostOn(source: string, loadTimeoutMs?: number): Promise<{ host: ToolHost; config: string }> {
  const config = join(tempDir(), 'init.lua');
  writeFileSync(config, source);
  const host = await ToolHost.start({ config, stateDir: tempDir(), ...(loadTimeoutMs ? { loadTimeoutMs } : {}) });
  return { host, config };
}

test('close() during a reload whose config loops at load cancels the load instead of waiting for its limit', async () => {
  // A load limit far past the test's patience: waiting for it would time the test out.
  const { host, config } = await hostOn(TOOLS, 600_000);
  const running = host.call('spin', {});
  writeFileSync(config, 'while true do end\n');
  const reloading = host.reload();
  await new Promise((resolve) => setTimeout(resolve, 300));
  await host.close();
  const [call, reload] = await Promise.all([running, reloading]);
  assert.equal(call.status, 'cancelled');
  assert.equal(reload.ok, false);
  assert.match(reload.diagnostics[0]!.message, /cancelled: moonpool is shutting down/);
  assert.equal(host.stats().workerThreads, 0);
});

test('a second close() resolves only once the first has finished', async () => {
  const { host } = await hostOn(TOOLS);
  const running = host.call('spin', {});
  await new Promise((resolve) => setTimeout(resolve, 300));
  let firstDone = false;
  const first = host.close().then(() => (firstDone = true));
  await host.close();
  assert.equal(firstDone, true);
  await first;
  assert.equal((await running).status, 'cancelled');
});

test('a reload listener that throws does not make reload() throw: the reload took over', async () => {
  const { host } = await hostOn(TOOLS);
  host.on('reload', () => {
    throw new Error('the listener failed');
  });
  try {
    const reloaded = await host.reload();
    assert.equal(reloaded.ok, true);
    assert.equal((await host.call('echo', { text: 'still here' })).content, 'still here');
  } finally {
    await host.close();
  }
});

test('a render in flight when a reload takes over still renders', async () => {
  const config = join(tempDir(), 'init.lua');
  writeFileSync(
    config,
    `agent.on('discover_tools', function(registry)
  registry:add { name = 'slow_render', description = 'Renders slowly.',
    run = function(args, ctx) ctx:show { n = 1 } return 'done' end,
    render = function(state)
      local stop = os.clock() + 0.4
      while os.clock() < stop do end
      return 'rendered ' .. state.n
    end }
end)
`,
  );
  const host = await ToolHost.start({ config, stateDir: tempDir(), renderBudgetMs: 5000 });
  try {
    const result = await host.call('slow_render', {});
    const rendering = host.render('slow_render', result.snapshot!, { width: 40, height: 5, expand: false });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await host.reload()).ok, true);
    assert.deepEqual(await rendering, { ok: true, lines: ['rendered 1'] });
  } finally {
    await host.close();
  }
});
