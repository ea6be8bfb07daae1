// What a line typed in the dashboard asks for: `TOOL {json}` or `/call TOOL {json}`, or one of
// the slash commands. A malformed line is a `problem` to show, never a call.

export type Command =
  | { kind: 'call'; tool: string; args: unknown }
  | { kind: 'tools' }
  | { kind: 'reload' }
  | { kind: 'clear' }
  | { kind: 'help' }
  | { kind: 'quit' }
  | { kind: 'none' }
  | { kind: 'problem'; message: string };

export const SLASH_COMMANDS = ['/call', '/tools', '/reload', '/clear', '/help', '/quit'] as const;

function parseCall(text: string): Command {
  const match = /^(\S+)\s*([\s\S]*)$/.exec(text.trim());
  if (!match) return { kind: 'problem', message: 'say which tool to call: TOOL {json}' };
  const [, tool, json] = match as unknown as [string, string, string];
  if (json.trim() === '') return { kind: 'call', tool, args: {} };
  try {
    return { kind: 'call', tool, args: JSON.parse(json) as unknown };
  } catch (error) {
    return { kind: 'problem', message: `the arguments for ${tool} are not valid JSON: ${(error as Error).message}` };
  }
}

export function parseCommand(line: string): Command {
  const text = line.trim();
  if (text === '') return { kind: 'none' };
  if (!text.startsWith('/')) return parseCall(text);
  const [name = '', ...rest] = text.split(/\s+/);
  switch (name) {
    case '/call':
      return parseCall(text.slice('/call'.length));
    case '/tools':
      return { kind: 'tools' };
    case '/reload':
      return { kind: 'reload' };
    case '/clear':
      return { kind: 'clear' };
    case '/help':
      return { kind: 'help' };
    case '/quit':
    case '/exit':
      return rest.length === 0 ? { kind: 'quit' } : { kind: 'problem', message: `${name} takes nothing after it` };
    default:
      return { kind: 'problem', message: `unknown command ${name} (the commands are ${SLASH_COMMANDS.join(', ')})` };
  }
}
