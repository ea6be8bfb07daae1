// A Lua 5.4 tokenizer for locating things in a config's source, never for running it: names,
// strings (their value), numbers, symbols, each with the line it starts on, counted as Lua counts
// them (`\n`, `\r`, `\r\n`, `\n\r`). Comments are skipped; text Lua would refuse ends the tokens.

export interface LuaToken {
  kind: 'name' | 'string' | 'number' | 'symbol';
  text: string;
  line: number;
}

const SYMBOLS = ['...', '..', '==', '~=', '<=', '>=', '//', '::', '<<', '>>'];
const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  '"': '"',
  "'": "'",
};

class Scanner {
  position = 0;
  line = 1;
  constructor(readonly source: string) {}

  at(offset = 0): string {
    return this.source[this.position + offset] ?? '';
  }

  /** Steps over one line break (two characters when they are `\r\n` or `\n\r`) and counts it. */
  newline(): void {
    const first = this.at();
    this.position++;
    const second = this.at();
    if ((second === '\n' || second === '\r') && second !== first) this.position++;
    this.line++;
  }

  /** The level of a long bracket opening here (`[[` 0, `[==[` 2), or -1. */
  longBracketLevel(): number {
    let level = 0;
    while (this.at(1 + level) === '=') level++;
    return this.at() === '[' && this.at(1 + level) === '[' ? level : -1;
  }

  /** Reads a long bracket's text (the scanner is on its first `[`); undefined when it never closes. */
  longText(level: number): string | undefined {
    this.position += level + 2;
    const close = `]${'='.repeat(level)}]`;
    let text = '';
    while (this.position < this.source.length) {
      if (this.source.startsWith(close, this.position)) {
        this.position += close.length;
        return text.replace(/^\n/, '');
      }
      const char = this.at();
      if (char === '\n' || char === '\r') {
        this.newline();
        text += '\n';
      } else {
        text += char;
        this.position++;
      }
    }
    return undefined;
  }

  quoted(quote: string): string | undefined {
    this.position++;
    let text = '';
    while (this.position < this.source.length) {
      const char = this.at();
      if (char === quote) {
        this.position++;
        return text;
      }
      if (char === '\n' || char === '\r') return undefined;
      if (char !== '\\') {
        text += char;
        this.position++;
        continue;
      }
      const escape = this.at(1);
      this.position += 2;
      if (escape in SIMPLE_ESCAPES) text += SIMPLE_ESCAPES[escape];
      else if (escape === '\n' || escape === '\r') {
        this.position--;
        this.newline();
        text += '\n';
      } else if (escape === 'z') {
        while (/\s/.test(this.at())) {
          if (this.at() === '\n' || this.at() === '\r') this.newline();
          else this.position++;
        }
      } else if (escape === 'x') {
        text += String.fromCharCode(parseInt(this.source.slice(this.position, this.position + 2), 16));
        this.position += 2;
      } else if (/\d/.test(escape)) {
        const digits = /^\d{0,2}/.exec(this.source.slice(this.position, this.position + 2))![0];
        text += String.fromCharCode(Number(escape + digits));
        this.position += digits.length;
      } else if (escape === 'u') {
        const match = /^\{([0-9a-fA-F]+)\}/.exec(this.source.slice(this.position, this.position + 12));
        if (!match) return undefined;
        text += String.fromCodePoint(Math.min(parseInt(match[1]!, 16), 0x10ffff));
        this.position += match[0].length;
      } else return undefined;
    }
    return undefined;
  }
}

/** The tokens of `source`, up to the first text Lua itself would refuse. */
export function luaTokens(source: string): LuaToken[] {
  const scanner = new Scanner(source);
  const tokens: LuaToken[] = [];
  if (source.startsWith('#'))
    while (scanner.position < source.length && scanner.at() !== '\n' && scanner.at() !== '\r') scanner.position++;
  while (scanner.position < source.length) {
    const char = scanner.at();
    const line = scanner.line;
    if (char === '\n' || char === '\r') {
      scanner.newline();
    } else if (/\s/.test(char)) {
      scanner.position++;
    } else if (char === '-' && scanner.at(1) === '-') {
      scanner.position += 2;
      const level = scanner.longBracketLevel();
      if (level >= 0) {
        if (scanner.longText(level) === undefined) break;
      } else
        while (scanner.position < source.length && scanner.at() !== '\n' && scanner.at() !== '\r') scanner.position++;
    } else if (/[A-Za-z_]/.test(char)) {
      let end = scanner.position;
      while (/[A-Za-z0-9_]/.test(source[end] ?? '')) end++;
      tokens.push({ kind: 'name', text: source.slice(scanner.position, end), line });
      scanner.position = end;
    } else if (/\d/.test(char) || (char === '.' && /\d/.test(scanner.at(1)))) {
      const start = scanner.position;
      while (/[0-9A-Za-z_.]/.test(scanner.at()) || (/[+-]/.test(scanner.at()) && /[eEpP]/.test(scanner.at(-1))))
        scanner.position++;
      tokens.push({ kind: 'number', text: source.slice(start, scanner.position), line });
    } else if (char === '"' || char === "'") {
      const text = scanner.quoted(char);
      if (text === undefined) break;
      tokens.push({ kind: 'string', text, line });
    } else if (char === '[' && scanner.longBracketLevel() >= 0) {
      const text = scanner.longText(scanner.longBracketLevel());
      if (text === undefined) break;
      tokens.push({ kind: 'string', text, line });
    } else {
      const symbol = SYMBOLS.find((candidate) => source.startsWith(candidate, scanner.position)) ?? char;
      tokens.push({ kind: 'symbol', text: symbol, line });
      scanner.position += symbol.length;
    }
  }
  return tokens;
}
