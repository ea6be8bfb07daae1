// Turns a call's snapshots and titles into MCP progress notifications: `progress` counts up by one
// per notification, `message` is the title and the first line the tool's `render` draws, and at
// most MAX_PER_SECOND go out per call (latest wins). Nothing is sent once the call has ended.
import type { ToolHost } from '../../core/index.js';
import { sanitizeLine } from '../terminal-text.js';

export const MAX_PROGRESS_PER_SECOND = 10;
const MESSAGE_VIEW = { width: 120, height: 1, expand: false };

export type SendProgress = (progress: number, message: string | undefined) => Promise<void>;

export class ProgressReporter {
  private title: string | undefined;
  private snapshot: Uint8Array | undefined;
  private dirty = false;
  private sent = 0;
  private lastSentAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private sending = false;
  private ended = false;

  constructor(
    private readonly host: ToolHost,
    private readonly tool: string,
    private readonly send: SendProgress,
  ) {}

  setTitle(title: string): void {
    this.title = title;
    this.markDirty();
  }

  setSnapshot(snapshot: Uint8Array): void {
    this.snapshot = snapshot;
    this.markDirty();
  }

  /** The call has ended: nothing more is sent. */
  end(): void {
    this.ended = true;
    clearTimeout(this.timer);
  }

  private markDirty(): void {
    this.dirty = true;
    if (this.timer || this.sending || this.ended) return;
    const wait = Math.max(0, this.lastSentAt + 1000 / MAX_PROGRESS_PER_SECOND - performance.now());
    this.timer = setTimeout(() => void this.flush(), wait);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (!this.dirty || this.ended) return;
    this.dirty = false;
    this.sending = true;
    this.lastSentAt = performance.now();
    try {
      const message = await this.message();
      if (!this.ended) await this.send(++this.sent, message);
    } catch {
      // The client went away or the render failed: progress is best effort.
    } finally {
      this.sending = false;
      if (this.dirty) this.markDirty();
    }
  }

  private async message(): Promise<string | undefined> {
    const parts: string[] = [];
    if (this.title) parts.push(sanitizeLine(this.title));
    if (this.snapshot) {
      const rendered = await this.host.render(this.tool, this.snapshot, MESSAGE_VIEW);
      const first = rendered.ok ? rendered.lines.find((line) => line.trim() !== '') : undefined;
      if (first !== undefined) parts.push(sanitizeLine(first).trim());
    }
    return parts.length > 0 ? parts.join(': ') : undefined;
  }
}
