// The terminal dashboard: a transcript of tool blocks, a status bar and an input line, drawn with
// blessed at most 30 frames a second. Typed lines become calls or commands; Esc cancels the newest
// running call (else stops reading a resumed session), Ctrl-O expands every block, PgUp/PgDn
// scroll, Ctrl-C cancels what runs and quits.
// A call's question (`ctx:ask`) shows in its block and takes the input line until answered: a
// number (or y/n) on an empty line, or a typed choice and Enter (Enter alone: the default); Esc
// declines it.
import blessed from 'blessed';
import {
  describePermissions,
  type AskAnswer,
  type AskQuestion,
  type Diagnostic,
  type ReloadResult,
  type SessionRecord,
  type ToolHost,
} from '../../core/index.js';
import { colorWanted } from '../color-choice.js';
import { displayPath, formatDiagnostic } from '../diagnostic-format.js';
import { columns, fitColumns } from '../text-width.js';
import { argumentTemplate, parameterLines } from '../tool-help.js';
import { answerOf, replyHint } from '../question-prompt.js';
import { Block, type PendingQuestion } from './block.js';
import { parseCommand, SLASH_COMMANDS } from './command-parser.js';
import { FrameScheduler } from './frame-scheduler.js';
import { LineEditor } from './line-editor.js';
import { statusLine } from './status-line.js';
import { MAX_BLOCKS, Transcript } from './transcript.js';

/** What a frame showed: the input line's text and the transcript's visible lines (tagged). */
export interface PaintedFrame {
  input: string;
  lines: string[];
}

export interface DashboardOptions {
  host: ToolHost;
  /** Terminal streams; default the process's. Tests and the bench pass their own. */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** terminfo name; set explicitly so blessed never guesses (and never prints its guesses). */
  terminal?: string;
  /** Show this session's recorded blocks (re-rendered) before new calls. */
  resumeSession?: string;
  /** Called after each frame is painted (for tests and measuring). */
  onPaint?: (frame: PaintedFrame) => void;
  /** Lines to show first, under the welcome (e.g. that the bundled demo config is in use). */
  notices?: string[];
}

/** Warnings a resumed session shows, each a note; past them, one note counts the rest. */
const MAX_RESUME_WARNINGS = 20;

const HELP = [
  'TOOL {json}  or  /call TOOL {json}   run a tool (Tab completes names; after a name, its arguments)',
  '/tools   the tools, their arguments, and whether they are available',
  '/reload  load the config again (a broken edit keeps the running one)',
  '/clear   empty the transcript      /quit   leave (Ctrl-C too)',
  'Esc cancels the newest running call (else stops reading a session) · Ctrl-O expands every block',
  'PgUp/PgDn scroll · ↑/↓ history',
  "A tool's question: its number (y/n) or a choice and Enter; Enter alone takes the default; Esc declines",
  'Ctrl-A/E line start/end · Alt-B/F word back/forward · Ctrl-W/U/K delete word/before/after',
].join('\n');

/** A load's or a reload's mark: ✗ when it did not take, ⚠ when it did with problems to read, else ✓. */
function loadMark(loaded: boolean, diagnostics: readonly Diagnostic[]): Block['status'] {
  if (!loaded) return 'error';
  return diagnostics.length > 0 ? 'warning' : 'ok';
}

export class Dashboard {
  private readonly screen: blessed.Widgets.Screen;
  private readonly transcriptBox: blessed.Widgets.BoxElement;
  private readonly statusBox: blessed.Widgets.BoxElement;
  private readonly inputBox: blessed.Widgets.BoxElement;
  private readonly transcript: Transcript;
  private readonly editor: LineEditor;
  private readonly scheduler: FrameScheduler;
  private expand = false;
  /** Colours on, unless NO_COLOR says otherwise. */
  private readonly color: boolean;
  /** Lines scrolled up from the bottom (0: follow the newest output). */
  private scrollBack = 0;
  private quitting: Promise<void> | undefined;
  /** Aborted on quit, or by Esc when no call runs: a resumed session still being read stops. */
  private readonly stopReading = new AbortController();
  /** The note that a resumed session is being read, until its calls replace it: no running call. */
  private reading: Block | undefined;
  private resolveDone: () => void = () => undefined;
  readonly done: Promise<void>;

  constructor(private readonly options: DashboardOptions) {
    const { host } = options;
    this.color = colorWanted();
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.screen = blessed.screen({
      input: options.input ?? process.stdin,
      output: options.output ?? process.stdout,
      terminal: options.terminal ?? 'xterm-256color',
      fullUnicode: true,
      // Terminals are UTF-8 today; without this, blessed trusts $LANG and maps text to ASCII/ACS.
      forceUnicode: true,
      smartCSR: true,
      warnings: false,
      title: 'moonpool',
    } as blessed.Widgets.IScreenOptions);
    this.transcriptBox = blessed.box({
      parent: this.screen,
      top: 0,
      left: 0,
      width: '100%',
      height: '100%-2',
      tags: true,
    });
    this.statusBox = blessed.box({
      parent: this.screen,
      bottom: 1,
      left: 0,
      width: '100%',
      height: 1,
      tags: false,
      style: this.color ? { fg: 'black', bg: 'white' } : { inverse: true },
    });
    this.inputBox = blessed.box({ parent: this.screen, bottom: 0, left: 0, width: '100%', height: 1, tags: true });
    this.transcript = new Transcript(host, () => this.scheduler.request());
    this.editor = new LineEditor({
      names: () => [...host.tools().map((tool) => tool.name), ...SLASH_COMMANDS],
      template: (name) => {
        const tool = host.tools().find((entry) => entry.name === name);
        return tool && argumentTemplate(tool.parameters);
      },
    });
    this.scheduler = new FrameScheduler(() => this.paint());

    this.screen.on('keypress', (ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg | undefined) =>
      this.onKey(ch, key),
    );
    this.screen.on('resize', () => this.scheduler.request());
    host.on('reload', (result) => this.showReload(result));

    if (options.resumeSession) void this.resume(options.resumeSession);
    this.note('moonpool', this.welcome(), loadMark(host.loaded, host.diagnostics()));
  }

  /** How many frames have been painted. */
  get frames(): number {
    return this.scheduler.frames;
  }

  private welcome(): string {
    const { host } = this.options;
    const problems = host.diagnostics().map(formatDiagnostic);
    const tools = host.tools().map((tool) => tool.name);
    const config = `config ${displayPath(host.configFile)}${host.loaded ? '' : ' (it did not load: fix it, then /reload)'}`;
    return [
      config,
      `${tools.length} tools: ${tools.join(', ') || '(none)'}`,
      ...(this.options.notices ?? []),
      ...problems,
      'Type a tool name and its JSON arguments (Tab after the name fills them in), or /help.',
    ].join('\n');
  }

  /**
   * Shows a resumed session's calls in the place of a note saying it is being read, before anything shown meanwhile.
   * The session is read a slice at a time, so keys (Ctrl-C quits) work while it is read. Only the newest MAX_BLOCKS
   * fit in the transcript, so only those are kept while the session is read, and the warnings past
   * MAX_RESUME_WARNINGS are counted.
   */
  private async resume(sessionId: string): Promise<void> {
    const reading = this.transcript.add((id) => Block.note(id, 'session', '', 'running', Date.now()));
    this.reading = reading;
    // A running block shows its log lines, with a spinner.
    reading.log(`reading session ${sessionId}… (Esc stops, Ctrl-C quits)`);
    this.animate();
    const newest: SessionRecord[] = [];
    const warnings: string[] = [];
    let moreWarnings = 0;
    for await (const entry of this.options.host.sessionEntries(sessionId, { signal: this.stopReading.signal })) {
      if ('record' in entry) {
        newest.push(entry.record);
        if (newest.length > 2 * MAX_BLOCKS) newest.splice(0, newest.length - MAX_BLOCKS);
      } else if (warnings.length < MAX_RESUME_WARNINGS) warnings.push(entry.warning);
      else moreWarnings++;
    }
    this.reading = undefined;
    if (this.quitting) return;
    if (moreWarnings > 0) warnings.push(`${moreWarnings} more warnings about this session`);
    const shown = newest.slice(-MAX_BLOCKS);
    if (this.stopReading.signal.aborted)
      warnings.push(`stopped reading session ${sessionId} (Esc): ${shown.length} of its calls shown`);
    this.transcript.replace(reading, [
      ...shown.map((record) => (id: number) => {
        const block = new Block(id, 'call', record.tool, record.finishedAt - record.durationMs);
        block.finish(record);
        return block;
      }),
      ...warnings.map((warning) => (id: number) => Block.note(id, 'session', warning, 'error', Date.now())),
    ]);
    this.animate();
    this.scheduler.request();
  }

  /** Keeps the spinners turning while a call runs or a session is read. */
  private animate(): void {
    this.scheduler.animate(this.reading !== undefined || this.transcript.running().length > 0);
  }

  private note(label: string, text: string, status: Block['status']): void {
    this.transcript.add((id) => Block.note(id, label, text, status, Date.now()));
    this.scrollBack = 0;
    this.scheduler.request();
  }

  private onKey(ch: string | undefined, key: blessed.Widgets.Events.IKeyEventArg | undefined): void {
    const name = key?.full ?? key?.name;
    const pending = this.pendingQuestion();
    if (pending && this.answerKey(pending, name)) return this.scheduler.request();
    switch (name) {
      case 'C-c':
        void this.quit();
        return;
      case 'escape': {
        const newest = this.transcript.running().at(-1);
        if (newest) newest.controller.abort();
        else if (this.reading) this.stopReading.abort();
        return;
      }
      case 'C-o':
        this.expand = !this.expand;
        break;
      case 'pageup':
        this.scrollBack += Math.max(1, this.transcriptHeight() - 2);
        break;
      case 'pagedown':
        this.scrollBack = Math.max(0, this.scrollBack - Math.max(1, this.transcriptHeight() - 2));
        break;
      case 'enter':
      case 'return':
        this.submit(this.editor.submit());
        break;
      case 'backspace':
        this.editor.backspace();
        break;
      case 'delete':
        this.editor.deleteForward();
        break;
      case 'left':
        this.editor.left();
        break;
      case 'right':
        this.editor.right();
        break;
      case 'home':
      case 'C-a':
        this.editor.home();
        break;
      case 'end':
      case 'C-e':
        this.editor.end();
        break;
      case 'up':
        this.editor.up();
        break;
      case 'down':
        this.editor.down();
        break;
      case 'C-u':
        this.editor.clearBefore();
        break;
      case 'C-k':
        this.editor.clearAfter();
        break;
      case 'C-w':
        this.editor.deleteWordBefore();
        break;
      case 'M-b':
        this.editor.wordLeft();
        break;
      case 'M-f':
        this.editor.wordRight();
        break;
      case 'tab': {
        const candidates = this.editor.complete();
        if (candidates.length > 1) this.note('complete', candidates.join('  '), 'ok');
        break;
      }
      default:
        if (ch && !key?.ctrl && !key?.meta && ch >= ' ') this.editor.insert(ch);
        else return;
    }
    this.scheduler.request();
  }

  /** The question answered first: the oldest a running call waits on. */
  private pendingQuestion(): PendingQuestion | undefined {
    return this.transcript.running().find((block) => block.question)?.question;
  }

  /** Enter answers `pending` with the line typed (or says why it does not), Escape declines; false for a key that edits the line. */
  private answerKey(pending: PendingQuestion, name: string | undefined): boolean {
    const { question } = pending;
    if (name === 'escape') {
      pending.answer({ refused: 'declined' });
      return true;
    }
    // blessed reports one Enter (\r) twice, as `enter` and then `return`: one keystroke answers one question.
    if (name === 'enter') return true;
    if (name === 'return') {
      const answer = answerOf(question, this.editor.text);
      if (answer === undefined) this.note('question', `not an answer: ${replyHint(question)}`, 'error');
      else {
        this.editor.home();
        this.editor.clearAfter();
        pending.answer(answer);
      }
      return true;
    }
    return false;
  }

  /** Shows `question` in `block` until it is answered, or the call ends first. */
  private ask(block: Block, question: AskQuestion, signal: AbortSignal): Promise<AskAnswer> {
    return new Promise((resolve) => {
      const pending: PendingQuestion = {
        question,
        answer: (answer) => {
          if (block.question !== pending) return;
          block.question = undefined;
          signal.removeEventListener('abort', ended);
          resolve(answer);
          this.scheduler.request();
        },
      };
      const ended = (): void => pending.answer({ refused: 'unavailable' });
      block.question = pending;
      signal.addEventListener('abort', ended, { once: true });
      this.scrollBack = 0;
      this.scheduler.request();
    });
  }

  private submit(line: string): void {
    const command = parseCommand(line);
    switch (command.kind) {
      case 'none':
        return;
      case 'problem':
        this.note('input', command.message, 'error');
        return;
      case 'help':
        this.note('help', HELP, 'ok');
        return;
      case 'clear':
        this.transcript.clear();
        this.scrollBack = 0;
        return;
      case 'quit':
        void this.quit();
        return;
      case 'tools':
        this.note('tools', this.toolList(), 'ok');
        return;
      case 'reload':
        // The result arrives as a `reload` event (showReload), like a watcher's.
        void this.options.host.reload().catch(() => undefined);
        return;
      case 'call':
        this.call(command.tool, command.args);
        return;
    }
  }

  /** Each tool: its name and description (or why it is unavailable), then what it may touch and its arguments, indented. */
  private toolList(): string {
    const tools = this.options.host.allTools();
    if (tools.length === 0) return 'no tools are loaded';
    // The note's body indent and the arguments' own, so that a wrapped description keeps its column.
    const width = Math.max(20, this.screen.width as number) - 2 - 4;
    return tools
      .flatMap((tool) => [
        `${tool.name}  ${tool.available ? tool.description.split('\n')[0] : `(unavailable: ${tool.unavailableReason})`}`,
        `    ${describePermissions(tool.permissions)}`,
        ...parameterLines(tool.parameters, width).map((line) => `    ${line}`),
      ])
      .join('\n');
  }

  private showReload(result: ReloadResult): void {
    const changes = [
      result.added.length > 0 ? `added ${result.added.join(', ')}` : '',
      result.removed.length > 0 ? `removed ${result.removed.join(', ')}` : '',
      result.changed.length > 0 ? `changed ${result.changed.join(', ')}` : '',
    ].filter(Boolean);
    const lines = result.ok
      ? [
          `reloaded: generation ${result.generation} (${result.durationMs} ms)${changes.length > 0 ? `; ${changes.join('; ')}` : ''}`,
        ]
      : [`reload failed; the previous config (generation ${result.generation}) is still running`];
    lines.push(...result.diagnostics.map(formatDiagnostic));
    this.note('reload', lines.join('\n'), loadMark(result.ok, result.diagnostics));
  }

  private call(tool: string, args: unknown): void {
    const block = this.transcript.add((id) => new Block(id, 'call', tool, Date.now()));
    this.scrollBack = 0;
    const update = (): void => this.scheduler.request();
    this.scheduler.animate(true);
    block.settled = this.options.host
      .call(tool, args, {
        signal: block.controller.signal,
        onSnapshot: (snapshot) => {
          block.snapshot = snapshot;
          update();
        },
        onTitle: (title) => {
          block.title = title;
          update();
        },
        onLog: (text) => {
          block.log(text);
          update();
        },
        onQueued: (place) => {
          block.queued = place;
          update();
        },
        onStart: () => {
          block.queued = undefined;
          update();
        },
        onAsk: (question, signal) => this.ask(block, question, signal),
      })
      .then((result) => {
        block.finish(result);
        this.animate();
        update();
      });
  }

  private transcriptHeight(): number {
    return Math.max(1, (this.screen.height as number) - 2);
  }

  private paint(): void {
    const width = Math.max(20, this.screen.width as number);
    const height = this.transcriptHeight();
    const { lines, starts } = this.transcript.draw({ width, expand: this.expand, now: Date.now(), color: this.color });
    this.scrollBack = Math.min(this.scrollBack, Math.max(0, lines.length - height));
    const bottom = lines.length - this.scrollBack;
    const top = Math.max(0, bottom - height);
    this.transcript.requestRenders(starts, top, bottom, width, this.expand);
    const visible = lines.slice(top, bottom);
    this.transcriptBox.setContent(visible.join('\n'));
    const { host } = this.options;
    const view = {
      sessionId: host.sessionId,
      toolCount: host.tools().length,
      running: this.transcript.running().length,
      expand: this.expand,
      scrolledBack: this.scrollBack,
    };
    this.statusBox.setContent(fitColumns(statusLine(host.stats(), view), width));
    this.inputBox.setContent(this.inputLine(width));
    this.screen.render();
    this.options.onPaint?.({ input: this.editor.text, lines: visible });
  }

  private inputLine(width: number): string {
    const chars = [...this.editor.text];
    const cursor = this.editor.cursor;
    let start = 0;
    // Keep the cursor in view on a long line.
    while (columns(chars.slice(start, cursor + 1).join('')) > width - 4) start++;
    const before = blessed.escape(chars.slice(start, cursor).join(''));
    const at = blessed.escape(chars[cursor] ?? ' ');
    const after = blessed.escape(
      fitColumns(
        chars.slice(cursor + 1).join(''),
        Math.max(0, width - 4 - columns(chars.slice(start, cursor + 1).join(''))),
      ),
    );
    const prompt = this.pendingQuestion() ? '?' : '>';
    return `{bold}${prompt}{/bold} ${before}{inverse}${at}{/inverse}${after}`;
  }

  /** Cancels running calls, waits for them to end, restores the terminal, and resolves `done`. */
  quit(): Promise<void> {
    this.quitting ??= (async () => {
      this.stopReading.abort();
      const running = this.transcript.running();
      for (const block of running) block.controller.abort();
      await Promise.all(running.map((block) => block.settled));
      this.scheduler.stop();
      this.screen.destroy();
      this.resolveDone();
    })();
    return this.quitting;
  }
}
