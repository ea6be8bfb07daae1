// The likely cause of a syntax error Lua reports without one: `'}' expected … near 'description'`
// after a field whose value ends the line before is most often a missing comma between the two.
import { luaTokens, type LuaToken } from './lua-tokens.js';

const EXPECTED_CLOSER = /^'[})\]]' expected(?: \(to close '[{([]' at line \d+\))? near (.+)$/;
/** Lua's reserved words that never end a value (`true`, `nil`, a function's `end` do). */
const NOT_VALUE_ENDS = new Set(
  'and break do else elseif for function goto if in local not or repeat return then until while'.split(' '),
);

/** Whether `token` can end a value: a string, a number, a name, `end`, or a closing bracket. */
function endsValue(token: LuaToken): boolean {
  if (token.kind === 'symbol') return token.text === '}' || token.text === ')' || token.text === ']';
  return token.kind !== 'name' || !NOT_VALUE_ENDS.has(token.text);
}

/** Whether `token` is the `near` text of Lua's message: `'description'`, `''A.''` (a string), `'{'`. */
function isNear(token: LuaToken, near: string): boolean {
  const quoted = /^'(.*)'$/s.exec(near)?.[1];
  if (quoted === undefined) return false;
  if (token.kind === 'string') return quoted.length >= 2 && quoted.slice(1, -1) === token.text;
  return quoted === token.text;
}

/** ` (a comma missing after the value on line N?)` for such an error at `line` of `source`, else ''. */
export function missingCommaHint(message: string, source: string, line: number): string {
  const near = EXPECTED_CLOSER.exec(message)?.[1];
  if (near === undefined) return '';
  const tokens = luaTokens(source);
  const at = tokens.findIndex((token) => token.line === line && isNear(token, near));
  const before = at > 0 ? tokens[at - 1] : undefined;
  if (before === undefined || !endsValue(before)) return '';
  return ` (a comma missing after the value on line ${before.line}?)`;
}
