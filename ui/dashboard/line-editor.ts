// The dashboard's input line as plain state: the text, the cursor (in characters), word moves
// and kills as in a shell's line editor, a history walked with up/down, and Tab: completion of
// tool and command names, then an argument template after a tool's name.

export interface CompletionSource {
  /** Names a word at the start of the line may complete to. */
  names(): string[];
  /** The arguments to offer after `name` (e.g. `{"path": ""}`), or undefined when it is no tool. */
  template(name: string): string | undefined;
}

const MAX_HISTORY = 500;

export class LineEditor {
  private chars: string[] = [];
  private cursorAt = 0;
  private readonly history: string[] = [];
  /** Position while walking the history; history.length means the line being typed. */
  private historyAt = 0;
  private draft = '';

  constructor(private readonly completions: CompletionSource) {}

  get text(): string {
    return this.chars.join('');
  }

  get cursor(): number {
    return this.cursorAt;
  }

  insert(text: string): void {
    const added = [...text];
    this.chars.splice(this.cursorAt, 0, ...added);
    this.cursorAt += added.length;
  }

  backspace(): void {
    if (this.cursorAt === 0) return;
    this.chars.splice(this.cursorAt - 1, 1);
    this.cursorAt--;
  }

  deleteForward(): void {
    this.chars.splice(this.cursorAt, 1);
  }

  left(): void {
    this.cursorAt = Math.max(0, this.cursorAt - 1);
  }

  right(): void {
    this.cursorAt = Math.min(this.chars.length, this.cursorAt + 1);
  }

  home(): void {
    this.cursorAt = 0;
  }

  end(): void {
    this.cursorAt = this.chars.length;
  }

  /** Ctrl-U: everything before the cursor goes. */
  clearBefore(): void {
    this.chars.splice(0, this.cursorAt);
    this.cursorAt = 0;
  }

  /** Ctrl-K: everything from the cursor on goes. */
  clearAfter(): void {
    this.chars.splice(this.cursorAt);
  }

  /** Ctrl-W: the word before the cursor goes, with the spaces after it. */
  deleteWordBefore(): void {
    const start = this.wordStartBefore(this.cursorAt);
    this.chars.splice(start, this.cursorAt - start);
    this.cursorAt = start;
  }

  /** Alt-B: to the start of this word, or of the previous one. */
  wordLeft(): void {
    this.cursorAt = this.wordStartBefore(this.cursorAt);
  }

  /** Alt-F: past the end of this word, or of the next one. */
  wordRight(): void {
    let at = this.cursorAt;
    while (at < this.chars.length && !isWordChar(this.chars[at]!)) at++;
    while (at < this.chars.length && isWordChar(this.chars[at]!)) at++;
    this.cursorAt = at;
  }

  private wordStartBefore(from: number): number {
    let at = from;
    while (at > 0 && !isWordChar(this.chars[at - 1]!)) at--;
    while (at > 0 && isWordChar(this.chars[at - 1]!)) at--;
    return at;
  }

  /** Enter: returns the line, remembers it, and starts a new one. */
  submit(): string {
    const line = this.text;
    if (line.trim() !== '' && this.history.at(-1) !== line) {
      this.history.push(line);
      if (this.history.length > MAX_HISTORY) this.history.shift();
    }
    this.historyAt = this.history.length;
    this.set('');
    return line;
  }

  up(): void {
    if (this.historyAt === 0) return;
    if (this.historyAt === this.history.length) this.draft = this.text;
    this.historyAt--;
    this.set(this.history[this.historyAt]!);
  }

  down(): void {
    if (this.historyAt >= this.history.length) return;
    this.historyAt++;
    this.set(this.historyAt === this.history.length ? this.draft : this.history[this.historyAt]!);
  }

  /**
   * Tab: completes the first word (a tool or command name) to the longest prefix all candidates
   * share; returns the candidates when more than one fits, so they can be shown. A tool's name,
   * completed or typed with a space after it, at the end of the line, gets its argument template.
   */
  complete(): string[] {
    const word = this.chars.slice(0, this.cursorAt).join('');
    if (/\s/.test(word)) {
      this.insertTemplate(word);
      return [];
    }
    const candidates = this.completions
      .names()
      .filter((name) => name.startsWith(word))
      .sort();
    if (candidates.length === 0) return [];
    const shared = candidates.reduce((prefix, name) => {
      let i = 0;
      while (i < prefix.length && prefix[i] === name[i]) i++;
      return prefix.slice(0, i);
    });
    const rest = this.chars.slice(this.cursorAt).join('');
    const completed = candidates.length === 1 ? `${shared} ` : shared;
    this.set(completed + rest.replace(/^ /, ''));
    this.cursorAt = [...completed].length;
    if (candidates.length > 1) return candidates;
    this.insertTemplate(completed);
    return [];
  }

  /** After `tool ` and nothing else, inserts the tool's template with the cursor in its first value. */
  private insertTemplate(typed: string): void {
    const match = /^(\S+) +$/.exec(typed);
    if (!match || this.cursorAt !== this.chars.length) return;
    const template = this.completions.template(match[1]!);
    if (template === undefined) return;
    const line = `${match[1]!} ${template}`;
    this.set(line);
    // Inside the first value's quotes when it is a string, else at its start.
    const value = /: ("?)/.exec(line);
    if (value) this.cursorAt = [...line.slice(0, value.index + 2 + value[1]!.length)].length;
  }

  private set(text: string): void {
    this.chars = [...text];
    this.cursorAt = this.chars.length;
  }
}

function isWordChar(char: string): boolean {
  return /[\p{L}\p{N}_]/u.test(char);
}
