// A hostile review of the worker pool (core/worker-pool.ts, core/pool-worker.ts): every way a task
// or a worker can end early, raced against the others, must leave no call stranded, no row,
// listener or start-gate place behind, and no process or thread running.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ToolHost } from '../core/index.js';
import { eventually, FIXTURES, ROOT, tempDir } from './helpers.js';

const TOOLS = `
local function add(registry, name, run, timeout)
  registry:add {
    name = name, description = name, timeout = timeout or 30,
    parameters = { type = 'object', properties = { text = { type = 'string' }, seconds = { type = 'string' } } },
    run = run,
  }
end
agent.on('discover_tools', function(registry)
  add(registry, 'echo', function(args) return args.text end)
  add(registry, 'spin', function() while true do end end, 0.2)
  add(registry, 'nap', function(args) capture('sleep ' .. args.seconds) return 'woke' end)
  add(registry, 'hoard', function()
    local hoard = {}
    while true do hoard[#hoard + 1] = ('x'):rep(65536) .. #hoard end
  end)
end)
`;

/** A config of one module (init.lua) with the tools above; `slowFile` makes its load loop while that file exists. */
function toolsConfig(slowFile?: string): string {
  const dir = tempDir();
  const slow = slowFile === undefined ? '' : `local slow = io.open(${JSON.stringify(slowFile)})\nif slow then slow:close() while true do end end\n`;
  writeFileSync(join(dir, 'init.lua'), slow + TOOLS);
  return join(dir, 'init.lua');
}

/** A config of `count` modules, lua/mN.lua each defining tool tN (it echoes its text). */
function manyModulesConfig(count: number): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'lua'));
  const requires: string[] = [];
  for (let i = 1; i <= count; i++) {
    requires.push(`require('m${i}')`);
    writeFileSync(
      join(dir, 'lua', `m${i}.lua`),
      `agent.on('discover_tools', function(registry) registry:add { name = 't${i}', description = 'x', run = function(args) return 't${i} ' .. tostring(args.text) end } end)\n`,
    );
  }
  writeFileSync(join(dir, 'init.lua'), `${requires.join('\n')}\n`);
  return join(dir, 'init.lua');
}

const children = new Set<ReturnType<typeof spawn>>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs `script` (an ES module) in a child node with the hung-mount preload; resolves with its first line of output, or undefined after `waitMs`. */
async function childLine(script: string, args: string[], waitMs: number): Promise<string | undefined> {
  const preload = fileURLToPath(new URL('./hung-mount.cjs', import.meta.url));
  const child = spawn(process.execPath, ['--require', preload, '--input-type=module', '-e', script, ...args], { stdio: 'pipe' });
  children.add(child);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  try {
    return (await eventually(() => stdout.includes('\n'), waitMs)) ? stdout.split('\n')[0] : undefined;
  } finally {
    // A process with a stuck thread cannot exit by itself.
    child.kill('SIGKILL');
    children.delete(child);
  }
}

/** A FIFO no one writes to, under a directory whose opens block (see test/hung-mount.cts). */
function hungFifo(): string {
  const mount = join(tempDir(), 'hung-mount');
  mkdirSync(mount);
  const path = join(mount, 'never-written');
  execFileSync('mkfifo', [path]);
  return path;
}

const CORE_URL = pathToFileURL(join(ROOT, 'dist', 'core', 'index.js')).href;

for (const how of ['times out', 'is cancelled'] as const) {
  test(`at maxThreads 1, the call queued behind one whose thread is stuck in a system call still runs when that one ${how}`, { timeout: 60_000 }, async () => {
    const script = `
      const { ToolHost } = await import(${JSON.stringify(CORE_URL)});
      const [config, stateDir, fifo, how] = process.argv.slice(1);
      const host = await ToolHost.start({ config, stateDir, cwd: stateDir, maxThreadsPerModule: 1 });
      const controller = new AbortController();
      const blocked = host.call(how === 'times out' ? 'block' : 'block_long', { fifo }, { signal: controller.signal });
      const queued = host.call('echo', { text: 'queued behind it' });
      if (how !== 'times out') setTimeout(() => controller.abort(), 500);
      const results = await Promise.all([blocked, queued]);
      process.stdout.write(JSON.stringify(results.map((result) => [result.status, result.content])) + '\\n');
    `;
    const line = await childLine(script, [join(FIXTURES, 'stuck', 'init.lua'), tempDir(), hungFifo(), how], 20_000);
    assert.ok(line !== undefined, 'the queued call never ended');
    const [blocked, queued] = JSON.parse(line) as [string, string][];
    assert.equal(blocked![0], how === 'times out' ? 'timeout' : 'cancelled');
    assert.deepEqual(queued, ['ok', 'queued behind it']);
  });
}

test('a worker file missing fails the calls waiting with why; once the file is back, calls run again', { timeout: 60_000 }, async () => {
  const install = tempDir();
  cpSync(join(ROOT, 'dist'), join(install, 'dist'), { recursive: true });
  for (const name of ['workers', 'node_modules', 'package.json']) symlinkSync(join(ROOT, name), join(install, name));
  const core = (await import(pathToFileURL(join(install, 'dist', 'core', 'index.js')).href)) as { ToolHost: typeof ToolHost };
  const host = await core.ToolHost.start({ config: toolsConfig(), stateDir: tempDir(), maxThreadsPerModule: 1 });
  after(() => host.close());
  const entry = join(install, 'dist', 'workers', 'lua-worker-entry.cjs');
  renameSync(entry, `${entry}.away`);
  const failed = await Promise.all([host.call('echo', { text: 'a' }), host.call('echo', { text: 'b' })]);
  for (const result of failed) {
    assert.equal(result.status, 'crashed');
    assert.match(result.content, /a worker could not start: .*lua-worker-entry\.cjs/);
  }
  renameSync(`${entry}.away`, entry);
  const result = await host.call('echo', { text: 'back' });
  assert.deepEqual([result.status, result.content], ['ok', 'back']);
});

test('a worker whose code fails to load is never handed another call', { timeout: 60_000 }, async () => {
  const install = tempDir();
  cpSync(join(ROOT, 'dist'), join(install, 'dist'), { recursive: true });
  mkdirSync(join(install, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules'))) symlinkSync(join(ROOT, 'node_modules', name), join(install, 'node_modules', name));
  for (const name of ['workers', 'package.json']) symlinkSync(join(ROOT, name), join(install, name));
  const core = (await import(pathToFileURL(join(install, 'dist', 'core', 'index.js')).href)) as { ToolHost: typeof ToolHost };
  const host = await core.ToolHost.start({ config: manyModulesConfig(3), stateDir: tempDir(), maxThreadsPerModule: 1 });
  after(() => host.close());
  const wasmoon = join(install, 'node_modules', 'wasmoon');
  renameSync(wasmoon, `${wasmoon}.away`);
  // Whether the dying worker's last answer arrives before it exits varies: three modules, two
  // calls each (a third crash would disable the module).
  for (const tool of ['t1', 't2', 't3']) {
    for (const result of await Promise.all(['a', 'b'].map((text) => host.call(tool, { text })))) {
      assert.equal(result.status, 'crashed');
      assert.match(result.content, /a worker could not start: .*wasmoon/);
    }
  }
  renameSync(`${wasmoon}.away`, wasmoon);
  const result = await host.call('t1', { text: 'back' });
  assert.deepEqual([result.status, result.content], ['ok', 't1 back']);
});
