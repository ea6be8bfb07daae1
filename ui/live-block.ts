// `moonpool call` on a terminal: the tool's block drawn live on stderr while it runs (the block
// model's header with a spinner, elapsed time and `queued #N` while the call waits for a worker,
// its body from `render`), redrawn at most
// REDRAWS_PER_SECOND, and erased when the call ends so that only the result stays. Log lines
// scroll above it.
import type { RenderResult, ToolHost } from '../core/index.js';
import { plainBlockLines, renderView, type BlockFacts, type BlockLayout } from './block-view.js';
import { sanitizeLine } from './terminal-text.js';

const REDRAWS_PER_SECOND = 10;

/** Where the block is drawn: a terminal (stderr), or a stand-in for one in tests. */
export interface BlockTerminal {
  /** Its width in columns (80 when unknown). */
  readonly columns?: number;
  write(text: string): unknown;
}

export class LiveBlock {
  private snapshot: Uint8Array | undefined;
  private title: string | undefined;
  private queued: number | undefined;
  private rendered: RenderResult | undefined;
  private drawnLines = 0;
  private rendering = false;
  /** Set by finish(): a render still in flight then must not draw the block again. */
  private finished = false;
  /** Set while a question is asked below: the block is off the screen until it is answered. */
  private held = false;
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stream: BlockTerminal,
    private readonly host: ToolHost,
    private readonly tool: string,
  ) {
    this.timer = setInterval(() => void this.redraw(), 1000 / REDRAWS_PER_SECOND);
  }

  setSnapshot(snapshot: Uint8Array): void {
    this.snapshot = snapshot;
  }

  setTitle(title: string): void {
    this.title = title;
  }

  /** The call's place in line while it waits for a worker; undefined once it runs. */
  setQueued(place: number | undefined): void {
    this.queued = place;
  }

  /** Takes the block off the screen while the terminal is used for something else (a question), or puts it back. */
  hold(held: boolean): void {
    this.held = held;
    if (held) this.erase();
    else this.draw();
  }

  /** Writes a log line above the block. */
  log(text: string): void {
    this.erase();
    this.stream.write(`${sanitizeLine(text)}\n`);
    this.draw();
  }

  /** Stops redrawing and removes the block from the screen, for good. */
  finish(): void {
    this.finished = true;
    clearInterval(this.timer);
    this.erase();
  }

  private async redraw(): Promise<void> {
    const snapshot = this.snapshot;
    if (snapshot && !this.rendering) {
      this.rendering = true;
      this.snapshot = undefined;
      this.rendered = await this.host.render(this.tool, snapshot, renderView(this.layout()));
      this.rendering = false;
    }
    this.erase();
    this.draw();
  }

  private layout(): BlockLayout {
    // One column spare: a row of exactly the terminal's width would wrap on some terminals.
    return { width: Math.max(20, this.stream.columns || 80) - 1, expand: false };
  }

  private draw(): void {
    if (this.finished || this.held) return;
    const facts: BlockFacts = {
      kind: 'call',
      state: 'running',
      tool: this.tool,
      title: this.title,
      elapsedMs: Date.now() - this.started,
      content: '',
      rendered: this.rendered,
      queued: this.queued,
    };
    const lines = plainBlockLines(facts, this.layout());
    this.stream.write(`${lines.join('\n')}\n`);
    this.drawnLines = lines.length;
  }

  private erase(): void {
    if (this.drawnLines === 0) return;
    this.stream.write(`\r\x1b[${this.drawnLines}A\x1b[J`);
    this.drawnLines = 0;
  }
}
