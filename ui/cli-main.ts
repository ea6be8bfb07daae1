// The `moonpool` command, imported by its entry (cli.ts) once the worker threads it will need have
// started: parses the command line, opens a host, runs one command, and exits
// with 0 (ok), 1 (the tool reported an error / check found problems) or 2 (usage, config or state
// dir error). Every failure is one line on stderr, never a stack trace.
import { readFileSync } from 'node:fs';
import { MoonpoolError, type ToolHost } from '../core/index.js';
import { helpText } from './cli-help.js';
import { parseCli, UsageError, type CliInput } from './cli-options.js';
import * as callCommand from './commands/call.js';
import * as listCommand from './commands/list.js';
import { formatDiagnostic } from './diagnostic-format.js';
import { commandAsRun } from './invocation.js';
import { openHost, type Output } from './open-host.js';
import { exitLeavingStuckThreads, exitLeavingUnreadOutput } from './process-exit.js';

// Each command's module is imported when that command runs: `list` never loads the dashboard's
// terminal library or the MCP SDK, which would cost it most of its start-up time. `list` and
// `call` are a few KB that load nothing more: importing them at the end cost 1–14 ms.
const COMMAND_MODULES = {
  new: () => import('./commands/new-tool.js'),
  sessions: () => import('./commands/sessions.js'),
  check: () => import('./commands/check.js'),
  replay: () => import('./commands/replay.js'),
  mcp: () => import('./mcp/mcp-server.js'),
  dash: () => import('./commands/dash.js'),
  call: () => Promise.resolve(callCommand),
  list: () => Promise.resolve(listCommand),
};

async function runCommand(host: ToolHost, input: CliInput, output: Output): Promise<number> {
  if (input.command === 'check') return (await COMMAND_MODULES.check()).checkConfig(host, output, input.strict);
  // A session replays even when the config does not load: blocks fall back to their recorded text.
  if (input.command === 'replay') return (await COMMAND_MODULES.replay()).replaySession(host, input, output);
  // The dashboard starts even with a broken config: a fix and a reload bring the tools. So does the
  // MCP server under --watch; without it, no reload could ever bring one.
  if (input.command === 'mcp' && (host.loaded || input.watch))
    return (await COMMAND_MODULES.mcp()).serveMcp(host, output.stderr).then(() => 0);
  if (input.command === 'dash') return (await COMMAND_MODULES.dash()).runDashboard(host, input, output);
  if (!host.loaded) {
    for (const diagnostic of host.diagnostics()) output.stderr.write(`${formatDiagnostic(diagnostic)}\n`);
    const serving = input.command === 'mcp' ? ', so mcp has no tools to serve (with --watch it waits for a fix)' : '';
    output.stderr.write(`moonpool: the config did not load${serving}\n`);
    return 2;
  }
  switch (input.command) {
    case 'call':
      return (await COMMAND_MODULES.call()).callTool(host, input, output);
    default:
      return (await COMMAND_MODULES.list()).listTools(host, input, output);
  }
}

/** A fault of moonpool's own (or of the file system under it): one line, and the stack on request. */
function faultLine(error: unknown): string {
  const stack = process.env['MOONPOOL_DEBUG'] && error instanceof Error ? `\n${error.stack}` : '';
  return `moonpool: ${error instanceof Error ? error.message : String(error)}${stack}\n`;
}

export interface CliOutcome {
  exitCode: number;
  /** Worker threads still running after the host closed (see ToolHost stats). */
  stuckThreads: number;
  /** The command was `moonpool mcp`: output its client leaves unread is not waited for. */
  servedMcp: boolean;
}

export async function main(argv: string[], output: Output = process): Promise<CliOutcome> {
  let host: ToolHost | undefined;
  let servedMcp = false;
  let exitCode: number;
  try {
    exitCode = await runCli(argv, output, (opened, command) => {
      host = opened;
      servedMcp = command === 'mcp';
    });
  } finally {
    await host?.close();
  }
  if (!host) return { exitCode, stuckThreads: 0, servedMcp };
  const stats = host.stats();
  // moonpool's own files failing cost the records and spill files only: one line says so.
  if (stats.sessionLogFailures > 0) {
    const why = host.sessionLogWarnings().at(-1);
    output.stderr.write(
      `moonpool: ${stats.sessionLogFailures} call record${stats.sessionLogFailures === 1 ? ' was' : 's were'} not written to the session log${why === undefined ? '' : `: ${why}`}\n`,
    );
  }
  return { exitCode, stuckThreads: stats.stuckThreads, servedMcp };
}

/** A usage error in one line, pointing to the help of the command it was for. */
function usageLine(error: UsageError, command: CliInput['command'] | undefined): string {
  if (!error.helps) return `moonpool: ${error.message}\n`;
  const topic = error.command ?? (command === 'help' || command === 'version' ? undefined : command);
  return `moonpool: ${error.message}; see '${commandAsRun()} help${topic === undefined ? '' : ` ${topic}`}'\n`;
}

async function runCli(
  argv: string[],
  output: Output,
  opened: (host: ToolHost, command: CliInput['command']) => void,
): Promise<number> {
  let input: CliInput;
  try {
    input = parseCli(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.stderr.write(usageLine(error, undefined));
    return 2;
  }
  if (input.command === 'help') {
    output.stdout.write(`${helpText(input.helpTopic)}\n`);
    return 0;
  }
  if (input.command === 'version') {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    output.stdout.write(`${manifest.version}\n`);
    return 0;
  }
  try {
    // Writing a new tool needs no host (and no config that loads).
    if (input.command === 'new') return (await COMMAND_MODULES.new()).newTool(input, output);
    // Listing sessions needs no host either; it applies the retention rule itself.
    if (input.command === 'sessions') return (await COMMAND_MODULES.sessions()).listSessions(input, output);
    if (input.command === 'replay') input = (await COMMAND_MODULES.replay()).withReplayTarget(input, output);
    const host = await openHost(input, output);
    opened(host, input.command);
    return await runCommand(host, input, output);
  } catch (error) {
    if (error instanceof UsageError) {
      output.stderr.write(usageLine(error, input.command));
      return 2;
    }
    if (error instanceof MoonpoolError) {
      output.stderr.write(`moonpool: ${error.message}\n`);
      return 2;
    }
    output.stderr.write(faultLine(error));
    return 2;
  }
}

// A fault outside any command's own handling (an event handler of a library, say) is one line too.
const reportFault = (error: unknown): void => {
  process.stderr.write(faultLine(error));
  process.exit(2);
};
process.on('uncaughtException', reportFault);
process.on('unhandledRejection', reportFault);
// A reader that went away (`moonpool replay ID | head -1`) is no fault: what is left to print is
// dropped, and the command finishes as it would have (closing its host, so nothing is left behind).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') reportFault(error);
  });
}

const { exitCode, stuckThreads, servedMcp } = await main(process.argv.slice(2));
process.exitCode = exitCode;
if (stuckThreads > 0) await exitLeavingStuckThreads(stuckThreads, process.stdout, process.stderr);
// An MCP client that closed stdin and stopped reading stdout would keep a pending write, and so
// the process, alive for good. (Other commands wait: `moonpool replay ID | less` reads on demand.)
if (servedMcp) await exitLeavingUnreadOutput(process.stdout);
