// A config of N modules in a temporary directory, each defining one trivial tool (`tool_1` …), for
// the scenarios that measure what each module costs.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface GeneratedModules {
  config: string;
  toolNames: string[];
  remove(): void;
}

export function generateModules(count: number): GeneratedModules {
  const dir = mkdtempSync(join(tmpdir(), 'moonpool-bench-modules-'));
  mkdirSync(join(dir, 'tools'));
  const toolNames = Array.from({ length: count }, (_, index) => `tool_${index + 1}`);
  for (const name of toolNames) {
    writeFileSync(
      join(dir, 'tools', `${name}.lua`),
      `local M = {}\nfunction M.register(registry)\n  registry:add { name = '${name}', description = 'Returns ok.', run = function() return 'ok' end }\nend\nreturn M\n`,
    );
  }
  const requires = toolNames.map((name) => `  require('tools.${name}').register(registry)`).join('\n');
  writeFileSync(join(dir, 'init.lua'), `agent.on('discover_tools', function(registry)\n${requires}\nend)\n`);
  return { config: join(dir, 'init.lua'), toolNames, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
