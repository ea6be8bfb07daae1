// Where each field of a `registry:add { … }` definition is written: the table constructor at the
// call's line is read from the config's source into a tree of fields and their lines, so that a
// problem in `parameters.properties.n.type` names the line of `type`, not of `registry:add`.
// A definition not written as a literal table (built by a function, say) keeps the call's line.
import { luaTokens, type LuaToken } from './lua-tokens.js';

/** A field's line, the string it holds when written as one literal, and the fields of the table it holds when written as `{ … }`. */
export interface FieldLines {
  line: number;
  text?: string;
  fields?: Fields;
}
export type Fields = Map<string | number, FieldLines>;

/** Constructors nested deeper than this are not looked into (Lua itself stops near 200). */
const MAX_NESTING = 64;
/** How a symbol or a word opens (1) or closes (-1) a bracket or a block an expression can hold. */
const BRACKETS = new Map(Object.entries({ '(': 1, '{': 1, '[': 1, ')': -1, '}': -1, ']': -1 }));
const BLOCKS = new Map(Object.entries({ function: 1, if: 1, do: 1, repeat: 1, end: -1, until: -1 }));

const is = (token: LuaToken | undefined, kind: LuaToken['kind'], text?: string): boolean =>
  token !== undefined && token.kind === kind && (text === undefined || token.text === text);

/** The index just past the expression starting at `index`: the next `,`, `;` or `}` outside brackets and blocks. */
function skipExpression(tokens: LuaToken[], index: number): number {
  let brackets = 0;
  let blocks = 0;
  for (; index < tokens.length; index++) {
    const { kind, text } = tokens[index]!;
    if (kind === 'symbol' && brackets === 0 && blocks === 0 && (text === ',' || text === ';' || text === '}'))
      return index;
    if (kind === 'symbol') brackets += BRACKETS.get(text) ?? 0;
    else if (kind === 'name') blocks += BLOCKS.get(text) ?? 0;
    if (brackets < 0) return index;
  }
  return index;
}

/** Reads the constructor whose `{` is at `index`; returns its fields and the index past its `}`. */
function readConstructor(tokens: LuaToken[], index: number, depth: number): { fields: Fields; end: number } {
  const fields: Fields = new Map();
  let position = 0;
  index++;
  while (index < tokens.length && !is(tokens[index], 'symbol', '}')) {
    const start = tokens[index]!;
    let key: string | number | undefined;
    if (is(start, 'name') && is(tokens[index + 1], 'symbol', '=')) {
      key = start.text;
      index += 2;
    } else if (
      is(start, 'symbol', '[') &&
      is(tokens[index + 2], 'symbol', ']') &&
      is(tokens[index + 3], 'symbol', '=')
    ) {
      const written = tokens[index + 1]!;
      if (written.kind === 'string') key = written.text;
      else if (written.kind === 'number' && Number.isInteger(Number(written.text))) key = Number(written.text);
      index += 4;
    } else if (is(start, 'symbol', '[')) {
      index = skipExpression(tokens, index + 1);
      if (is(tokens[index], 'symbol', ']')) index++;
      if (is(tokens[index], 'symbol', '=')) index++;
    } else key = ++position;
    const field: FieldLines = { line: start.line };
    const valueEnd = skipExpression(tokens, index);
    if (valueEnd === index + 1 && is(tokens[index], 'string')) field.text = tokens[index]!.text;
    if (is(tokens[index], 'symbol', '{') && depth < MAX_NESTING) {
      const table = readConstructor(tokens, index, depth + 1);
      if (table.end === valueEnd) field.fields = table.fields;
    }
    if (key !== undefined && !fields.has(key)) fields.set(key, field);
    index = valueEnd;
    if (is(tokens[index], 'symbol', ',') || is(tokens[index], 'symbol', ';')) index++;
    else if (!is(tokens[index], 'symbol', '}')) break;
  }
  return { fields, end: index + 1 };
}

/** The constructors passed to `X:add { … }` or `X:add({ … })` whose `add` is on `line`. */
function callsOnLine(tokens: LuaToken[], line: number): number[] {
  let low = 0;
  let high = tokens.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (tokens[middle]!.line < line) low = middle + 1;
    else high = middle;
  }
  const found: number[] = [];
  for (let index = low; index < tokens.length && tokens[index]!.line === line; index++) {
    if (!is(tokens[index], 'symbol', ':') || !is(tokens[index + 1], 'name', 'add')) continue;
    if (is(tokens[index + 2], 'symbol', '{')) found.push(index + 2);
    else if (is(tokens[index + 2], 'symbol', '(') && is(tokens[index + 3], 'symbol', '{')) found.push(index + 3);
  }
  return found;
}

/** Finds definitions' field lines in the sources it is given, reading each file once. */
export class DefinitionLines {
  private readonly tokens = new Map<string, LuaToken[] | undefined>();

  constructor(private readonly sourceOf: (file: string) => string | undefined) {}

  /**
   * The fields of the definition added at `file:line`. With several `:add { … }` on that line, the
   * one whose `name` is written as the string `name`; undefined when that cannot be told.
   */
  fieldsAt(file: string, line: number, name: unknown): Fields | undefined {
    if (!this.tokens.has(file)) {
      const source = this.sourceOf(file);
      this.tokens.set(file, source === undefined ? undefined : luaTokens(source));
    }
    const tokens = this.tokens.get(file);
    if (!tokens) return undefined;
    const tables = callsOnLine(tokens, line).map((index) => readConstructor(tokens, index, 0).fields);
    if (tables.length <= 1) return tables[0];
    const named = tables.filter((fields) => fields.get('name')?.text === name);
    return named.length === 1 ? named[0] : undefined;
  }
}

/** The line of the deepest field of `path` written literally, or `fallback` when even the first is not (numbers index lists from 0). */
export function lineOf(fields: Fields | undefined, path: readonly (string | number)[], fallback: number): number {
  let line = fallback;
  let current = fields;
  for (const key of path) {
    // A list's index counts from 0 here and from 1 in Lua; a Lua integer key arrives as a string.
    const field =
      typeof key === 'number'
        ? current?.get(key + 1)
        : (current?.get(key) ?? (/^-?\d+$/.test(key) ? current?.get(Number(key)) : undefined));
    if (!field) break;
    line = field.line;
    current = field.fields;
  }
  return line;
}
