// Starts a ToolHost for a CLI command: config lookup (saying on stderr when the bundled demo is
// used) and the options every command shares.
import { ToolHost, resolveConfig } from '../core/index.js';
import type { CliInput } from './cli-options.js';
import { displayPath } from './diagnostic-format.js';

export interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export async function openHost(input: CliInput, output: Output): Promise<ToolHost> {
  const config = resolveConfig(input.config);
  if (config.source === 'bundled') {
    output.stderr.write(`moonpool: no config found (--config, $MOONPOOL_CONFIG, ~/.config/moonpool/init.lua); using the bundled demo ${displayPath(config.file)}\n`);
  }
  return ToolHost.start({
    config: config.file,
    ...(input.cwd === undefined ? {} : { cwd: input.cwd }),
    ...(input.stateDir === undefined ? {} : { stateDir: input.stateDir }),
    ...(input.session === undefined ? {} : { sessionId: input.session }),
    ...(input.timeoutSeconds === undefined ? {} : { timeoutMs: input.timeoutSeconds * 1000 }),
    ...(input.cpuSlots === undefined ? {} : { cpuSlots: input.cpuSlots }),
    watch: input.watch,
  });
}
