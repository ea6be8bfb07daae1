// Starts a ToolHost for a CLI command: config lookup (saying on stderr when the bundled demo is
// used, and refusing it for `mcp`, whose client is a model that would get the demo's `sh`), the options every command shares, and for the commands that record calls, a state
// directory they can write (checked at start, so an unusable one is one line and exit 2).
import { accessSync, constants, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import {
  defaultStateDir,
  MoonpoolError,
  ToolHost,
  resolveConfig,
  stateDirProblem,
  type ResolvedConfig,
} from '../core/index.js';
import { UsageError, type CliInput } from './cli-options.js';
import { displayPath } from './diagnostic-format.js';
import { retentionOptions } from './retention-option.js';

export interface Output {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * What to tell a person when the bundled demo stands in for their config, naming where it was
 * looked for, and the demo's path unless `namesDemo` is false (the dashboard shows it already).
 */
export function configNotice(config: ResolvedConfig, namesDemo = true): string | undefined {
  if (config.source !== 'bundled') return undefined;
  return `no config found (--config, $MOONPOOL_CONFIG, ${displayPath(config.userFile ?? '~/.config/moonpool/init.lua')}); using the bundled demo${namesDemo ? ` ${displayPath(config.file)}` : ''}`;
}

/** The config a command is to load, a missing one named as the command line names it. */
export function commandConfig(input: CliInput): ResolvedConfig {
  return resolveConfig(input.config, { explicitFrom: '--config' });
}

/** Commands that run calls, and so write the session log and spill files. */
const RECORDING_COMMANDS = new Set<CliInput['command']>(['call', 'mcp', 'dash']);
/**
 * Commands that run no tool: their Lua (the config, discovery, `available`) is short, and V8's
 * optimizing compile of the Lua VM's interpreter loop that it would start (about 0.1 s on another
 * thread) would only delay the exit, which waits for it.
 */
const TOOLLESS_COMMANDS = new Set<CliInput['command']>(['list', 'check']);

export async function openHost(input: CliInput, output: Output): Promise<ToolHost> {
  // Checked here, not at the first command a tool starts: a mistyped directory is a usage error.
  if (input.cwd !== undefined) {
    if (statSync(input.cwd, { throwIfNoEntry: false })?.isDirectory() !== true)
      throw new UsageError(`--cwd ${input.cwd}: not a directory`);
    try {
      accessSync(input.cwd, constants.X_OK);
    } catch (error) {
      throw new UsageError(`--cwd ${input.cwd}: cannot be entered (${(error as NodeJS.ErrnoException).code})`);
    }
  }
  if (RECORDING_COMMANDS.has(input.command)) {
    const problem = stateDirProblem(resolve(input.stateDir ?? defaultStateDir()));
    if (problem !== undefined) throw new MoonpoolError('STATE_DIR_UNUSABLE', problem);
  }
  // Before the Lua VM's module is compiled: the flag holds for the modules compiled after it.
  if (TOOLLESS_COMMANDS.has(input.command)) setFlagsFromString('--liftoff-only');
  const retention = retentionOptions(input.keepSessions);
  const config = commandConfig(input);
  // An MCP client often starts servers without the user's environment ($XDG_CONFIG_HOME): serving
  // the demo then would hand a model a shell by accident, and the client would hide the notice.
  if (config.source === 'bundled' && input.command === 'mcp') {
    throw new MoonpoolError(
      'CONFIG_NOT_FOUND',
      `no config found (--config, $MOONPOOL_CONFIG, ${displayPath(config.userFile ?? '~/.config/moonpool/init.lua')}); mcp does not serve the bundled demo: pass --config FILE`,
    );
  }
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
    ...retention,
    watch: input.watch,
    // One call is coming: its module's worker starts while the config loads.
    warmModuleWorker: input.command === 'call',
  });
}
