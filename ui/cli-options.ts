// The command line: commands, options (node:util parseArgs) and the usage text.
import { parseArgs } from 'node:util';

export const COMMANDS = ['dash', 'list', 'call', 'check', 'replay', 'sessions', 'mcp', 'new'] as const;
export type Command = (typeof COMMANDS)[number];

export const USAGE = `moonpool — LLM-callable tools written in Lua, each module in its own worker thread

Usage:
  moonpool [dash] [--session ID] [--watch]                  the terminal dashboard (the default)
  moonpool list [--json] [--format anthropic|openai|mcp]   the available tools
  moonpool call TOOL [JSON] [--json]                        run a tool once, print its result
  moonpool check [--strict]                                 load the config, print every problem
  moonpool replay SESSION|last [--width N] [--expand]       a session's blocks, re-rendered
  moonpool sessions [--json]                                the recorded sessions, newest last
  moonpool mcp [--watch]                                    serve the tools over MCP on stdio
  moonpool new NAME [--dir DIR]                             write a new tool module to start from

Options:
  --config FILE      the config (init.lua or its directory); default: $MOONPOOL_CONFIG,
                     then $XDG_CONFIG_HOME/moonpool/init.lua, then the bundled demo
  --cwd DIR          working directory for tools (default: the current one)
  --state-dir DIR    sessions and spill files (default: $XDG_STATE_HOME/moonpool)
  --session ID       append to this session instead of starting a new one
  --timeout S        time limit in seconds for tools that set none (default 120)
  --cpu-slots N      how many calls may execute Lua at once; the rest take turns
                     (default: the number of CPUs)
  --dir DIR          where 'new' writes (default: the config's directory)
  --strict           check: warnings fail too (exit 1)
  --keep-sessions SPEC  sessions kept at start: an age, a total size or both (14d,200MiB),
                     or forever; default 30d,1GiB or $MOONPOOL_KEEP_SESSIONS
  --watch            reload when a file of the config's directory changes (long-running commands)
  -h, --help         this text
  -v, --version      the version

Exit codes: 0 ok, 1 the tool reported an error (or check found errors; with --strict, warnings), 2 usage, config or
state-dir error, 137 a worker thread was stuck in a system call (the process ended itself).`;

export interface CliInput {
  command: Command | 'help' | 'version';
  positionals: string[];
  config?: string;
  cwd?: string;
  stateDir?: string;
  session?: string;
  timeoutSeconds?: number;
  cpuSlots?: number;
  json: boolean;
  format?: string;
  width?: number;
  expand: boolean;
  watch: boolean;
  /** `check`: warnings count as failures. */
  strict: boolean;
  dir?: string;
  /** `--keep-sessions` as given; see retention-option.ts. */
  keepSessions?: string;
}

export class UsageError extends Error {}

export function parseCli(argv: string[]): CliInput {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        cwd: { type: 'string' },
        'state-dir': { type: 'string' },
        session: { type: 'string' },
        timeout: { type: 'string' },
        'cpu-slots': { type: 'string' },
        json: { type: 'boolean', default: false },
        format: { type: 'string' },
        width: { type: 'string' },
        expand: { type: 'boolean', default: false },
        watch: { type: 'boolean', default: false },
        strict: { type: 'boolean', default: false },
        dir: { type: 'string' },
        'keep-sessions': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;
  let command: CliInput['command'];
  if (values.help) command = 'help';
  else if (values.version) command = 'version';
  else if (first === undefined) command = 'dash';
  else if ((COMMANDS as readonly string[]).includes(first)) command = first as Command;
  else throw new UsageError(`unknown command '${first}' (the commands are: ${COMMANDS.join(', ')})`);

  const input: CliInput = { command, positionals: rest, json: values.json, expand: values.expand, watch: values.watch, strict: values.strict };
  if (values.config !== undefined) input.config = values.config;
  if (values.cwd !== undefined) input.cwd = values.cwd;
  if (values['state-dir'] !== undefined) input.stateDir = values['state-dir'];
  if (values.session !== undefined) input.session = values.session;
  if (values.format !== undefined) input.format = values.format;
  if (values.dir !== undefined) input.dir = values.dir;
  if (values['keep-sessions'] !== undefined) input.keepSessions = values['keep-sessions'];
  if (values.width !== undefined) {
    const width = Number(values.width);
    if (!Number.isInteger(width) || width < 20) throw new UsageError(`--width takes a whole number of columns, at least 20 (got '${values.width}')`);
    input.width = width;
  }
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0) throw new UsageError(`--timeout takes a positive number of seconds (got '${values.timeout}')`);
    input.timeoutSeconds = seconds;
  }
  if (values['cpu-slots'] !== undefined) {
    const slots = Number(values['cpu-slots']);
    if (!Number.isInteger(slots) || slots < 1) throw new UsageError(`--cpu-slots takes a whole number, at least 1 (got '${values['cpu-slots']}')`);
    input.cpuSlots = slots;
  }
  return input;
}
