// Turns a call's snapshots and titles into MCP progress notifications: `progress` and `total` are
// the state's `progress = { done, total }` when it has one, else `progress` counts up by one;
// `message` is the title and the first line the tool's `render` draws. A call that waits for a
// worker says `queued #N` at progress -N (moving up the line is progress), then `running` at 0
// once a worker has it. `progress` only grows (a
// notification whose `done` has not grown waits for one that has), at most MAX_PER_SECOND go out
// per call (latest wins), and nothing is sent once the call has ended.
import type { ToolHost } from '../../core/index.js';
import { sanitizeLine } from '../terminal-text.js';
import { progressFraction } from './progress-fraction.js';

export const MAX_PROGRESS_PER_SECOND = 10;
const MESSAGE_VIEW = { width: 120, height: 1, expand: false };

export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

export type SendProgress = (update: ProgressUpdate) => Promise<void>;

export class ProgressReporter {
  private title: string | undefined;
  private snapshot: Uint8Array | undefined;
  private dirty = false;
  private progress = -Infinity;
  private lastSentAt = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  private sending = false;
  private ended = false;
  /** The call's place in line while it waits for a worker. */
  private queued: number | undefined;
  private waited = false;

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

  setQueued(place: number): void {
    this.queued = place;
    this.waited = true;
    this.markDirty();
  }

  /** A worker has taken the queued call. */
  setStarted(): void {
    this.queued = undefined;
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
      // Read here, not per snapshot: at most MAX_PROGRESS_PER_SECOND scans of a state a call.
      const fraction = this.snapshot ? progressFraction(this.snapshot) : undefined;
      const progress = this.progressNow(fraction?.done);
      if (progress <= this.progress) return;
      const message = await this.message();
      if (this.ended) return;
      this.progress = progress;
      await this.send({
        progress,
        ...(fraction?.total === undefined ? {} : { total: fraction.total }),
        ...(message === undefined ? {} : { message }),
      });
    } catch {
      // The client went away or the render failed: progress is best effort.
    } finally {
      this.sending = false;
      if (this.dirty) this.markDirty();
    }
  }

  /** -place while queued; then the state's `done`, or a count: 0 for the start after a wait, up by one after. */
  private progressNow(done: number | undefined): number {
    if (this.queued !== undefined) return -this.queued;
    if (done !== undefined) return done;
    return this.progress < 0 && this.waited ? 0 : Math.max(0, this.progress) + 1;
  }

  private async message(): Promise<string | undefined> {
    if (this.queued !== undefined) return `queued #${this.queued}`;
    const parts: string[] = [];
    if (this.title) parts.push(sanitizeLine(this.title));
    if (this.snapshot) {
      const rendered = await this.host.render(this.tool, this.snapshot, MESSAGE_VIEW);
      const first = rendered.ok ? rendered.lines.find((line) => line.trim() !== '') : undefined;
      if (first !== undefined) parts.push(sanitizeLine(first).trim());
    }
    if (parts.length === 0) return this.waited ? 'running' : undefined;
    return parts.join(': ');
  }
}
