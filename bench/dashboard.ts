// dashboard: 50 tools running at once (one module each), each calling ctx:show as fast as it can
// for 5 s, with the dashboard drawing them on a virtual 160×48 terminal. Measures frames per
// second, the main thread's event-loop delay (p99), and keystroke-to-echo (a key typed every
// 100 ms, until a painted frame shows it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ToolHost } from '../core/index.js';
import { Dashboard } from '../ui/dashboard/dashboard.js';
import { VirtualTerminal } from '../ui/dashboard/virtual-terminal.js';
import { within, type ScenarioResult } from './scenario.js';
import { percentile } from './stats.js';

const TOOLS = 50;
const SECONDS = 5;

function writeConfig(dir: string): void {
  mkdirSync(join(dir, 'lua'));
  const requires: string[] = [];
  for (let i = 0; i < TOOLS; i++) {
    writeFileSync(
      join(dir, 'lua', `busy_${i}.lua`),
      `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'busy_${i}',
    description = 'Shows its progress as fast as it can for a number of seconds.',
    parameters = { type = 'object', properties = { seconds = { type = 'number' } } },
    timeout = 120,
    run = function(args, ctx)
      local stop, i = os.clock() + args.seconds, 0
      while os.clock() < stop do
        i = i + 1
        ctx:show { i = i, label = 'step ' .. i }
      end
      return 'showed ' .. i .. ' states'
    end,
    render = function(state, view) return ('%s of busy_${i}'):format(state.label) end,
  }
end)
`,
    );
    requires.push(`require('busy_${i}')`);
  }
  writeFileSync(join(dir, 'init.lua'), `${requires.join('\n')}\n`);
}

export async function dashboardScenario(): Promise<ScenarioResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'moonpool-bench-dashboard-'));
  writeConfig(dir);
  const host = await ToolHost.start({
    config: join(dir, 'init.lua'),
    stateDir: join(dir, 'state'),
    cwd: dir,
    maxThreadsPerModule: 1,
  });
  const terminal = new VirtualTerminal(160, 48);
  let echoed: ((input: string) => void) | undefined;
  const dashboard = new Dashboard({
    host,
    input: terminal.input,
    output: terminal.output,
    onPaint: (frame) => echoed?.(frame.input),
  });
  let snapshots = 0;
  host.on('reload', () => undefined);
  try {
    const results: Promise<unknown>[] = [];
    for (let i = 0; i < TOOLS; i++) results.push(host.call(`busy_${i}`, { seconds: 0.5 }));
    await Promise.all(results);
    for (let i = 0; i < TOOLS; i++) terminal.type(`busy_${i} {"seconds": ${SECONDS + 2}}\r`);
    // Let every worker start and every tool begin showing before measuring.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const framesBefore = dashboard.frames;
    const started = performance.now();
    const echoes: number[] = [];
    while (performance.now() - started < SECONDS * 1000) {
      const key = String.fromCharCode(97 + (echoes.length % 26));
      const typedAt = performance.now();
      const shown = new Promise<void>((resolve) => (echoed = (input) => input.endsWith(key) && resolve()));
      terminal.type(key);
      await shown;
      echoes.push(performance.now() - typedAt);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    delay.disable();
    snapshots = Object.values(host.stats().modules).length;
    const frameRate = (dashboard.frames - framesBefore) / seconds;
    return [
      within(
        'dashboard-frames',
        'frames/s',
        frameRate,
        { max: 30 },
        `${TOOLS} tools showing at once, ${snapshots} module pools`,
      ),
      within('dashboard-loop-delay', 'ms p99', delay.percentile(99) / 1e6, { max: 50 }),
      within(
        'dashboard-keystroke',
        'ms p95',
        percentile(echoes, 95),
        { max: 50 },
        `max ${Math.max(...echoes).toFixed(1)} ms over ${echoes.length} keys`,
      ),
    ];
  } finally {
    await dashboard.quit();
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
