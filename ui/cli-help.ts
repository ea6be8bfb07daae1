// `moonpool help [COMMAND]` and `moonpool COMMAND --help`: the whole usage, or one command's
// usage line, what it does and the options it takes (their lines from the whole usage).
import { COMMANDS, USAGE, type Command } from './cli-options.js';

interface CommandHelp {
  usage: string;
  about: string;
  options: string[];
  /** An option's lines where this command differs from the whole usage's. */
  ownLines?: Record<string, string[]>;
}

const SHARED = ['--config', '--cwd', '--state-dir', '--keep-sessions'];

const HELP: Record<Command, CommandHelp> = {
  dash: {
    usage: 'moonpool [dash] [--session ID] [--watch]',
    about: 'The terminal dashboard: type a tool name and its JSON arguments, or /help.',
    options: [...SHARED, '--session', '--timeout', '--cpu-slots', '--watch'],
  },
  list: {
    usage: 'moonpool list [--json] [--format anthropic|openai|mcp]',
    about:
      'The available tools and what each may touch (its permissions, or full access), as a table, as JSON, or as a model API expects them.',
    options: [...SHARED, '--json', '--format'],
  },
  call: {
    usage: 'moonpool call TOOL [JSON] [--json] [--yes]',
    about: 'Runs a tool once and prints its result (stdout; stderr when it failed). Ctrl-C cancels it (exit 130).',
    options: [...SHARED, '--session', '--timeout', '--cpu-slots', '--yes', '--json'],
  },
  check: {
    usage: 'moonpool check [--strict]',
    about:
      'Loads the config and prints every problem as file:line: message, and a note for each tool that declares no permissions.',
    options: ['--config', '--cwd', '--strict'],
  },
  replay: {
    usage: 'moonpool replay SESSION|last [--width N] [--expand]',
    about: "A session's blocks, re-rendered with the current config; nothing runs.",
    options: ['--config', '--state-dir', '--width', '--expand'],
  },
  sessions: {
    usage: 'moonpool sessions [--json] [--all]',
    about: 'The recorded sessions, oldest first (the newest 20 without --all).',
    options: ['--state-dir', '--keep-sessions', '--all', '--json'],
  },
  mcp: {
    usage: 'moonpool mcp [--config FILE] [--watch]',
    about: "Serves the config's tools over MCP on stdio (never the bundled demo).",
    options: [...SHARED, '--session', '--timeout', '--cpu-slots', '--watch'],
    ownLines: {
      '--config': [
        '  --config FILE      the config (init.lua or its directory); default: $MOONPOOL_CONFIG,',
        '                     then $XDG_CONFIG_HOME/moonpool/init.lua; one of them is required',
      ],
    },
  },
  new: {
    usage: 'moonpool new NAME [--dir DIR]',
    about: 'Writes a new tool module to start from (never overwrites a file).',
    options: ['--config', '--dir'],
  },
};

/** The lines of USAGE that describe `option` (its line and the indented ones after it). */
function optionLines(option: string): string[] {
  const lines = USAGE.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`  ${option} `));
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && !/^ {6,}\S/.test(line));
  return lines.slice(start, end < 0 ? undefined : end);
}

export function isCommand(name: string): name is Command {
  return (COMMANDS as readonly string[]).includes(name);
}

/** The help for `topic` (a command), or the whole usage. */
export function helpText(topic?: Command): string {
  if (topic === undefined) return USAGE;
  const help = HELP[topic];
  return [
    `Usage: ${help.usage}`,
    '',
    help.about,
    '',
    'Options:',
    ...help.options.flatMap((option) => help.ownLines?.[option] ?? optionLines(option)),
    ...optionLines('-h,'),
  ].join('\n');
}
