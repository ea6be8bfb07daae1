// `moonpool call` on a terminal: the tool's block drawn live on stderr while it runs (header with
// a spinner and elapsed time, body from `render`), redrawn at most REDRAWS_PER_SECOND, and erased
// when the call ends so that only the result stays. Log lines scroll above it.
import type { ToolHost } from '../core/index.js';
import { sanitizeLine } from './terminal-text.js';

const REDRAWS_PER_SECOND = 10;
const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const MAX_BODY_LINES = 12;

export class LiveBlock {
  private snapshot: Uint8Array | undefined;
  private title: string | undefined;
  private body: string[] = [];
  private drawnLines = 0;
  private frame = 0;
  private rendering = false;
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly stream: NodeJS.WriteStream,
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

  /** Writes a log line above the block. */
  log(text: string): void {
    this.erase();
    this.stream.write(`${sanitizeLine(text)}\n`);
    this.draw();
  }

  /** Stops redrawing and removes the block from the screen. */
  finish(): void {
    clearInterval(this.timer);
    this.erase();
  }

  private async redraw(): Promise<void> {
    this.frame++;
    const snapshot = this.snapshot;
    if (snapshot && !this.rendering) {
      this.rendering = true;
      this.snapshot = undefined;
      const view = { width: this.width() - 2, height: MAX_BODY_LINES, expand: false };
      const rendered = await this.host.render(this.tool, snapshot, view);
      // While the call runs there is no model-facing text yet: the render, or why there is none.
      this.body = rendered.ok ? rendered.lines.map((line) => sanitizeLine(line)) : rendered.reason ? [`(${sanitizeLine(rendered.reason)})`] : [];
      this.rendering = false;
    }
    this.erase();
    this.draw();
  }

  private width(): number {
    return Math.max(20, this.stream.columns || 80);
  }

  private draw(): void {
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    const title = this.title ? `  ${sanitizeLine(this.title)}` : '';
    const lines = [`${SPINNER[this.frame % SPINNER.length]} ${this.tool}${title}  (${seconds} s)`, ...this.body.slice(0, MAX_BODY_LINES).map((line) => `  ${line}`)];
    const width = this.width();
    const clipped = lines.map((line) => ([...line].length > width - 1 ? [...line].slice(0, width - 2).join('') + '…' : line));
    this.stream.write(`${clipped.join('\n')}\n`);
    this.drawnLines = clipped.length;
  }

  private erase(): void {
    if (this.drawnLines === 0) return;
    this.stream.write(`\r\x1b[${this.drawnLines}A\x1b[J`);
    this.drawnLines = 0;
  }
}
