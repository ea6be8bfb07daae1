// reload: a config of 20 modules with 5 tools each. Median time from `reload()` to every new tool
// being callable (the reload resolved: the new generation serves), and to the first call's result
// (which starts that module's first worker).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median } from './stats.js';

const MODULES = 20;
const TOOLS_PER_MODULE = 5;
const RELOADS = 9;
const GOAL_MS = 400;

function writeConfig(dir: string, version: number): void {
  const requires: string[] = [];
  for (let m = 0; m < MODULES; m++) {
    const tools: string[] = [];
    for (let t = 0; t < TOOLS_PER_MODULE; t++) {
      tools.push(`  registry:add {
    name = 'tool_${m}_${t}',
    description = 'Tool ${t} of module ${m}.',
    parameters = { type = 'object', properties = { text = { type = 'string' }, count = { type = 'integer', minimum = 0 } }, required = { 'text' } },
    run = function(args) return 'v${version} ' .. args.text end,
  }`);
    }
    writeFileSync(
      join(dir, 'lua', `module_${m}.lua`),
      `agent.on('discover_tools', function(registry)\n${tools.join('\n')}\nend)\n`,
    );
    requires.push(`require('module_${m}')`);
  }
  writeFileSync(join(dir, 'init.lua'), `${requires.join('\n')}\n`);
}

export async function reloadScenario(): Promise<ScenarioResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'moonpool-bench-reload-'));
  mkdirSync(join(dir, 'lua'));
  writeConfig(dir, 0);
  const host = await ToolHost.start({ config: join(dir, 'init.lua'), stateDir: join(dir, 'state'), cwd: dir });
  const callable: number[] = [];
  const firstResult: number[] = [];
  try {
    for (let version = 1; version <= RELOADS; version++) {
      writeConfig(dir, version);
      const started = performance.now();
      const result = await host.reload();
      callable.push(performance.now() - started);
      if (!result.ok || host.tools().length !== MODULES * TOOLS_PER_MODULE)
        throw new Error(`reload ${version} did not load every tool`);
      const call = await host.call(`tool_${version % MODULES}_0`, { text: 'x' });
      firstResult.push(performance.now() - started);
      if (call.content !== `v${version} x`)
        throw new Error(`the first call after reload ${version} answered ${call.content}`);
    }
  } finally {
    await host.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const goal = { name: 'the goal', value: GOAL_MS };
  return [
    {
      ...compare('reload-callable', 'ms median', median(callable), goal, { max: 1 }),
      note: `${MODULES} modules × ${TOOLS_PER_MODULE} tools`,
    },
    {
      ...compare('reload-first-result', 'ms median', median(firstResult), goal, {}),
      note: 'includes starting the module’s first worker',
    },
  ];
}
