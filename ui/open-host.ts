// Starts a ToolHost for a CLI command: config lookup (saying on stderr when the bundled demo is
// used) and the options every command shares.
import { ToolHost, resolveConfig, type ResolvedConfig } from '../core/index.js';
import type { CliInput } from './cli-options.js';
import { displayPath } from './diagnostic-format.js';

export interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** What to tell a person when the bundled demo stands in for their config, naming where it was looked for. */
export function configNotice(config: ResolvedConfig): string | undefined {
  if (config.source !== 'bundled') return undefined;
  return `no config found (--config, $MOONPOOL_CONFIG, ${displayPath(config.userFile ?? '~/.config/moonpool/init.lua')}); using the bundled demo ${displayPath(config.file)}`;
}

export async function openHost(input: CliInput, output: Output): Promise<ToolHost> {
  const config = resolveConfig(input.config);
  const notice = configNotice(config);
  // The dashboard shows it on its own screen: printed here, it would stay hidden until it quits.
  if (notice !== undefined && input.command !== 'dash') output.stderr.write(`moonpool: ${notice}\n`);
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
