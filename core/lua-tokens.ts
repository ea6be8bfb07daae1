// A Lua 5.4 tokenizer for locating things in a config's source, never for running it: names,
// strings (their value), numbers, symbols, each with the line it starts on, counted as Lua counts
// them (`\n`, `\r`, `\r\n`, `\n\r`). Comments are skipped; text Lua would refuse ends the tokens.
// One sticky expression reads a token; each of its parts can match in one way only, so no source
// makes it backtrack more than linearly.

export interface LuaToken {
  kind: 'name' | 'string' | 'number' | 'symbol';
  text: string;
  line: number;
}

const ESCAPE = String.raw`\\(?:z\s*(?!\s)|x[0-9a-fA-F]{2}|\d{3}|\d{1,2}(?!\d)|u\{[0-9a-fA-F]+\}|\r\n?|\n\r?|[abfnrtv\\"'])`;
const TOKEN = [
  String.raw`\s+|--\[(?<comment>=*)\[[\s\S]*?\]\k<comment>\]|--(?!\[=*\[)[^\r\n]*`,
  String.raw`\[(?<level>=*)\[(?<long>[\s\S]*?)\]\k<level>\]`,
  String.raw`"(?<double>(?:${ESCAPE}|[^"\\\r\n])*)"|'(?<single>(?:${ESCAPE}|[^'\\\r\n])*)'`,
  String.raw`(?<name>[A-Za-z_]\w*)|(?<number>\.?\d(?:[eEpP][+-]|[\w.])*)`,
  String.raw`(?<symbol>\.\.\.?|==|~=|<=|>=|\/\/|::|<<|>>|(?!--|\[=*\[)[^\s"'])`,
].join('|');
const LINE_BREAK = /\r\n|\n\r|\r|\n/g;
const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v' };

/** The character(s) an escape sequence (`\n`, `\x41`, `\u{48}`, `\z` and the space it skips) stands for. */
function unescape(escape: string): string {
  const body = escape.slice(1);
  if (body[0] === 'z') return '';
  if (body[0] === 'x') return String.fromCharCode(parseInt(body.slice(1), 16));
  if (body[0] === 'u') return String.fromCodePoint(Math.min(parseInt(body.slice(2), 16), 0x10ffff));
  if (/^\d/.test(body)) return String.fromCharCode(Number(body));
  if (/^[\r\n]/.test(body)) return '\n';
  return SIMPLE_ESCAPES[body] ?? body;
}

/** The tokens of `source`, up to the first text Lua itself would refuse. */
export function luaTokens(source: string): LuaToken[] {
  const tokens: LuaToken[] = [];
  const token = new RegExp(TOKEN, 'y');
  const escape = new RegExp(ESCAPE, 'g');
  // A first line starting with `#` (`#!/usr/bin/env lua`) is no Lua.
  token.lastIndex = source.startsWith('#') ? source.search(/[\r\n]|$/) : 0;
  let line = 1;
  for (let match; token.lastIndex < source.length && (match = token.exec(source)) !== null;) {
    const { long, double, single, name, number, symbol } = match.groups!;
    const quoted = double ?? single;
    if (long !== undefined) {
      const text = long.replace(LINE_BREAK, '\n').replace(/^\n/, '');
      tokens.push({ kind: 'string', text, line });
    } else if (quoted !== undefined) tokens.push({ kind: 'string', text: quoted.replace(escape, unescape), line });
    else if (name !== undefined) tokens.push({ kind: 'name', text: name, line });
    else if (number !== undefined) tokens.push({ kind: 'number', text: number, line });
    else if (symbol !== undefined) tokens.push({ kind: 'symbol', text: symbol, line });
    // Most tokens hold no line break: testing first is faster than counting.
    if (/[\r\n]/.test(match[0])) line += match[0].match(LINE_BREAK)!.length;
  }
  return tokens;
}
