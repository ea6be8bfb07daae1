// The likely cause of a syntax error Lua reports without one: `'}' expected … near 'description'`
// after a field whose value ends the line before is most often a missing comma between the two;
// `'}' expected … near 'end'` (a token no field can start with) is a `}` never written.
import { luaTokens, type LuaToken } from './lua-tokens.js';

const EXPECTED_CLOSER = /^'([})\]])' expected(?: \(to close '[{([]' at line \d+\))? near (.+)$/;
/** Lua's reserved words that never end a value (`true`, `nil`, a function's `end` do). */
const NOT_VALUE_ENDS = new Set(
  'and break do else elseif for function goto if in local not or repeat return then until while'.split(' '),
);
/** Lua's reserved words that never start a value or a field (`nil`, `function`, `not` do). */
const NOT_FIELD_STARTS = new Set(
  'and break do else elseif end for goto if in local or repeat return then until while'.split(' '),
);
/** Symbols that start a field or a value after a value: `[k] =`, a table, a `(…)`, a unary operator. */
const FIELD_START_SYMBOLS = new Set(['[', '{', '(', '-', '#', '~', '...']);

/** Whether `token` can end a value: a string, a number, a name, `end`, or a closing bracket. */
function endsValue(token: LuaToken): boolean {
  if (token.kind === 'symbol') return token.text === '}' || token.text === ')' || token.text === ']';
  return token.kind !== 'name' || !NOT_VALUE_ENDS.has(token.text);
}

/** Whether `token` can start a field of a table (or an argument): a comma before it would make it one. */
function startsField(token: LuaToken): boolean {
  if (token.kind === 'symbol') return FIELD_START_SYMBOLS.has(token.text);
  return token.kind !== 'name' || !NOT_FIELD_STARTS.has(token.text);
}

/** Whether `token` is the `near` text of Lua's message: `'description'`, `''A.''` (a string), `'{'`. */
function isNear(token: LuaToken, near: string): boolean {
  const quoted = /^'(.*)'$/s.exec(near)?.[1];
  if (quoted === undefined) return false;
  if (token.kind === 'string') return quoted.length >= 2 && quoted.slice(1, -1) === token.text;
  return quoted === token.text;
}

interface ExpectedCloser {
  closer: string;
  /** Lua's `near` text, quoted as Lua quotes it. */
  nearText: string;
  near: LuaToken;
  before: LuaToken | undefined;
}

/** The parts of an `'X' expected … near …` error at `line` of `source`, with the tokens it is near. */
function expectedCloser(message: string, source: string, line: number): ExpectedCloser | undefined {
  const parts = EXPECTED_CLOSER.exec(message);
  if (parts === null) return undefined;
  const [, closer, nearText] = parts as unknown as [string, string, string];
  const tokens = luaTokens(source);
  const at = tokens.findIndex((token) => token.line === line && isNear(token, nearText));
  if (at < 0) return undefined;
  return { closer, nearText, near: tokens[at]!, before: tokens[at - 1] };
}

/** ` (a comma missing after the value on line N?)` when a comma there would make Lua's stopping point a field, else ''. */
function commaHint({ near, before }: ExpectedCloser): string {
  if (before === undefined || !endsValue(before) || !startsField(near)) return '';
  return ` (a comma missing after the value on line ${before.line}?)`;
}

/** ` (a '}' missing before 'end' on line N?)` when no field can start where Lua stopped, else ''. */
function unclosedHint({ closer, nearText, near }: ExpectedCloser): string {
  if (startsField(near)) return '';
  return ` (a '${closer}' missing before ${nearText} on line ${near.line}?)`;
}

/** The missing-comma hint alone for such an error at `line` of `source`, or ''. */
export function missingCommaHint(message: string, source: string, line: number): string {
  const expected = expectedCloser(message, source, line);
  return expected === undefined ? '' : commaHint(expected);
}

/** The likely cause of an `'X' expected … near …` syntax error at `line` of `source`: a missing comma, or a bracket never closed; else ''. */
export function syntaxHint(message: string, source: string, line: number): string {
  const expected = expectedCloser(message, source, line);
  return expected === undefined ? '' : commaHint(expected) || unclosedHint(expected);
}
