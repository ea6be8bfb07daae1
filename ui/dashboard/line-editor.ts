// The dashboard's input line as plain state: the text, the cursor (in characters), a history
// walked with up/down, and tab completion of tool and command names.

export interface CompletionSource {
  /** Names a word at the start of the line may complete to. */
  names(): string[];
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
   * share; returns the candidates when more than one fits, so they can be shown.
   */
  complete(): string[] {
    const line = this.text;
    const word = line.slice(0, this.cursorAt);
    if (/\s/.test(word)) return [];
    const candidates = this.completions.names().filter((name) => name.startsWith(word)).sort();
    if (candidates.length === 0) return [];
    const shared = candidates.reduce((prefix, name) => {
      let i = 0;
      while (i < prefix.length && prefix[i] === name[i]) i++;
      return prefix.slice(0, i);
    });
    const rest = line.slice(this.cursorAt);
    const completed = candidates.length === 1 ? `${shared} ` : shared;
    this.set(completed + rest.replace(/^ /, ''));
    this.cursorAt = [...completed].length;
    return candidates.length === 1 ? [] : candidates;
  }

  private set(text: string): void {
    this.chars = [...text];
    this.cursorAt = this.chars.length;
  }
}
