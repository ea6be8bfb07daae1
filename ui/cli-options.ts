// The command line: commands, options (node:util parseArgs) and the usage text. A mistake is a
// UsageError naming the option as it was typed, with the name meant when one is close.
import { parseArgs } from 'node:util';
import { closestName, SESSION_ID_PATTERN } from '../core/index.js';

export const COMMANDS = ['dash', 'list', 'call', 'check', 'replay', 'sessions', 'mcp', 'new'] as const;
export type Command = (typeof COMMANDS)[number];

export const USAGE = `moonpool — LLM-callable tools written in Lua, each module in its own worker thread

Usage:
  moonpool [dash] [--session ID] [--watch]                  the terminal dashboard (the default)
  moonpool list [--json] [--format anthropic|openai|mcp]   the available tools
  moonpool call TOOL [JSON] [--json] [--yes]                run a tool once, print its result
  moonpool check [--strict]                                 load the config, print every problem
  moonpool replay SESSION|last [--width N] [--expand]       a session's blocks, re-rendered
  moonpool sessions [--json] [--all]                        the recorded sessions (the newest 20), newest last
  moonpool mcp [--config FILE] [--watch]                    serve the tools over MCP on stdio
  moonpool new NAME [--dir DIR]                             write a new tool module to start from
  moonpool help [COMMAND]                                   this text, or one command's

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
  --strict           check: warnings, and tools that declare no permissions, fail too (exit 1)
  --yes              call: answer a tool's questions (ctx:ask) with their defaults, never asking;
                     without a terminal (stdin) that is what happens anyway
  --all              sessions: list every one, not only the newest 20
  --json             list, call, sessions: print JSON on stdout
  --format API       list: the tools as the anthropic, openai or mcp API expects them
  --width N          replay: the width blocks are drawn at (default 80)
  --expand           replay: every block drawn whole, with all its printed lines
  --keep-sessions SPEC  sessions kept at start: an age, a total size or both (14d,200MiB),
                     or forever; default 30d,1GiB or $MOONPOOL_KEEP_SESSIONS
  --watch            reload when a file of the config's directory changes (long-running commands)
  -h, --help         this text (after a command: that command's)
  -v, --version      the version

Exit codes: 0 ok, 1 the tool reported an error (or check found errors; with --strict, warnings or
tools without permissions), 2 usage, config or state-dir error, 137 a worker thread was stuck in a
system call (the process ended itself).`;

export interface CliInput {
  command: Command | 'help' | 'version';
  /** `help`: the command asked about (`moonpool help call`, `moonpool call --help`). */
  helpTopic?: Command;
  positionals: string[];
  config?: string;
  cwd?: string;
  stateDir?: string;
  session?: string;
  timeoutSeconds?: number;
  cpuSlots?: number;
  json: boolean;
  /** `sessions`: every one, not only the newest. */
  all: boolean;
  format?: string;
  width?: number;
  expand: boolean;
  watch: boolean;
  /** `check`: warnings and tools without permissions count as failures. */
  strict: boolean;
  /** `call`: a tool's questions take their defaults; none is asked. */
  yes: boolean;
  dir?: string;
  /** `--keep-sessions` as given; see retention-option.ts. */
  keepSessions?: string;
}

/**
 * A command line moonpool cannot run; `command` is the one it was for, when known. `helps`: the
 * command's help would answer it (not so for a session that does not exist).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: Command,
    readonly helps = true,
  ) {
    super(message);
  }
}

const OPTIONS = {
  config: { type: 'string' },
  cwd: { type: 'string' },
  'state-dir': { type: 'string' },
  session: { type: 'string' },
  timeout: { type: 'string' },
  'cpu-slots': { type: 'string' },
  json: { type: 'boolean', default: false },
  all: { type: 'boolean', default: false },
  format: { type: 'string' },
  width: { type: 'string' },
  expand: { type: 'boolean', default: false },
  watch: { type: 'boolean', default: false },
  strict: { type: 'boolean', default: false },
  yes: { type: 'boolean', default: false },
  dir: { type: 'string' },
  'keep-sessions': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

const OPTION_SPELLINGS = Object.entries(OPTIONS).flatMap(([name, option]) => [
  `--${name}`,
  ...('short' in option ? [`-${option.short}`] : []),
]);

/** node:util's parse error, said as moonpool says a usage error: the option as typed, the one meant. */
function optionProblem(error: Error & { code?: string }, argv: string[]): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message)?.[1];
  if (unknown !== undefined) {
    const meant = closestName(unknown, OPTION_SPELLINGS);
    return `unknown option '${unknown}'${meant ? ` (did you mean '${meant}'?)` : ''}`;
  }
  const missing = /^Option '(-\w, )?(--[\w-]+)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(error.message);
  if (missing !== null) {
    const option = missing[2]!;
    // node:util takes a value starting with '-' (`--timeout -1`) for an option of its own.
    const next = argv[argv.indexOf(option) + 1];
    const meantAsValue = next !== undefined && !OPTION_SPELLINGS.includes(next.split('=')[0]!);
    return `${option} needs a value${meantAsValue ? `; one starting with '-' is written ${option}=${next}` : ''}`;
  }
  const flag = /^Option '(-\w, )?(--[\w-]+)' does not take an argument/.exec(error.message)?.[2];
  if (flag !== undefined) return `${flag} takes no value`;
  return error.message.split('\n')[0]!.replace(/\.$/, '');
}

/** The command a command line is for, as far as it can be told (for the help it points to). */
function unknownCommand(name: string): string {
  const meant = closestName(name, COMMANDS);
  return `unknown command '${name}'${meant ? ` (did you mean '${meant}'?)` : ` (the commands are: ${COMMANDS.join(', ')})`}`;
}

function commandOf(argv: string[]): Command | undefined {
  return argv.find((arg): arg is Command => (COMMANDS as readonly string[]).includes(arg));
}

export function parseCli(argv: string[]): CliInput {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(optionProblem(error as Error, argv), commandOf(argv));
  }
  const { values, positionals } = parsed;
  const [first, ...rest] = positionals;
  let command: CliInput['command'];
  if (first === 'help') {
    const topic = rest[0];
    if (topic !== undefined && !(COMMANDS as readonly string[]).includes(topic))
      throw new UsageError(unknownCommand(topic));
    return {
      command: 'help',
      ...(topic === undefined ? {} : { helpTopic: topic as Command }),
      positionals: [],
      json: false,
      all: false,
      expand: false,
      watch: false,
      strict: false,
      yes: false,
    };
  }
  if (values.version) command = 'version';
  else if (first === undefined) command = values.help ? 'help' : 'dash';
  else if ((COMMANDS as readonly string[]).includes(first)) command = first as Command;
  else throw new UsageError(unknownCommand(first));
  if (values.help) {
    return {
      command: 'help',
      ...(first === undefined ? {} : { helpTopic: command as Command }),
      positionals: [],
      json: false,
      all: false,
      expand: false,
      watch: false,
      strict: false,
      yes: false,
    };
  }
  const topic = command === 'version' || command === 'help' ? undefined : command;
  const usage = (message: string): UsageError => new UsageError(message, topic);

  const input: CliInput = {
    command,
    positionals: rest,
    json: values.json,
    all: values.all,
    expand: values.expand,
    watch: values.watch,
    strict: values.strict,
    yes: values.yes,
  };
  if (values.config !== undefined) input.config = values.config;
  if (values.cwd !== undefined) input.cwd = values.cwd;
  if (values['state-dir'] !== undefined) input.stateDir = values['state-dir'];
  if (values.session !== undefined) {
    if (!SESSION_ID_PATTERN.test(values.session))
      throw usage(`--session takes a session id: 1-64 letters, digits, _ and - (got '${values.session}')`);
    input.session = values.session;
  }
  if (values.format !== undefined) input.format = values.format;
  if (values.dir !== undefined) input.dir = values.dir;
  if (values['keep-sessions'] !== undefined) input.keepSessions = values['keep-sessions'];
  if (values.width !== undefined) {
    const width = Number(values.width);
    if (!Number.isInteger(width) || width < 20)
      throw usage(`--width takes a whole number of columns, at least 20 (got '${values.width}')`);
    input.width = width;
  }
  if (values.timeout !== undefined) {
    const seconds = Number(values.timeout);
    if (!Number.isFinite(seconds) || seconds <= 0)
      throw usage(`--timeout takes a positive number of seconds (got '${values.timeout}')`);
    input.timeoutSeconds = seconds;
  }
  if (values['cpu-slots'] !== undefined) {
    const slots = Number(values['cpu-slots']);
    if (!Number.isInteger(slots) || slots < 1)
      throw usage(`--cpu-slots takes a whole number, at least 1 (got '${values['cpu-slots']}')`);
    input.cpuSlots = slots;
  }
  return input;
}
