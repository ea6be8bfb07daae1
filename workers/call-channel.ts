// The worker's side of a call's live events (snapshots, title, log lines), sent over the event
// port (comlink). Titles (latest wins) and log lines (up to LOG_LIMIT_CHARS a call) go out
// together at most every EVENT_INTERVAL_MS, by a timer while the event loop is free and by the
// count hook while Lua runs; snapshot-box.ts decides when a snapshot goes. `drain` waits until
// the host has every event.
import type { Remote } from 'comlink';
import type { AskAnswer, AskQuestion, WorkerEvents } from '../shared/protocol.js';

/** Shortest time between two snapshots, and between two batches of titles and log lines. */
export const EVENT_INTERVAL_MS = 33;
/** What a line of the log costs against LOG_LIMIT_CHARS: its characters, and at least one, so empty lines are bounded too. */
export function lineCost(line: string): number {
  return Math.max(1, line.length);
}

/** A call's log past this many characters is dropped, with a note saying how much. */
export const LOG_LIMIT_CHARS = 1_000_000;

/** The last line of a log that was cut (a call's, or the config's while it loaded). */
export function droppedLogNote(whose: string, lines: number, characters?: number): string {
  const size = characters === undefined ? '' : ` (${characters.toLocaleString('en-US')} characters)`;
  return `[moonpool: ${lines} more lines${size} of ${whose} were dropped past its ${LOG_LIMIT_CHARS.toLocaleString('en-US')}-character limit]`;
}

export class CallChannel {
  private latest: Uint8Array | undefined;
  private latestTitle: string | undefined;
  private lastSentAt = 0;
  private lastDelivery: Promise<void> | undefined;
  private pendingTitle: string | undefined;
  private pendingLines: string[] = [];
  private lastEventsAt = -Infinity;
  private eventsTimer: NodeJS.Timeout | undefined;
  private loggedChars = 0;
  private droppedLines = 0;
  private droppedChars = 0;

  constructor(
    private readonly events: Remote<WorkerEvents>,
    private readonly callId: string,
  ) {}

  /** True when the last snapshot went out at least EVENT_INTERVAL_MS ago. */
  due(now = Date.now()): boolean {
    return now - this.lastSentAt >= EVENT_INTERVAL_MS;
  }

  /** Sends an encoded state (at most SNAPSHOT_LIMIT_BYTES, see snapshot-encoder.ts). */
  send(state: Uint8Array): void {
    this.latest = state;
    this.lastSentAt = Date.now();
    this.track(this.events.snapshot(this.callId, this.latest));
  }

  title(text: string): void {
    this.latestTitle = text;
    this.pendingTitle = text;
    this.sendEventsIfDue();
  }

  /** Logs a line; past the log's limit it is only counted, for the note at the end. */
  log(text: string): void {
    if (this.loggedChars + lineCost(text) > LOG_LIMIT_CHARS) {
      this.droppedLines++;
      this.droppedChars += text.length;
      return;
    }
    this.loggedChars += lineCost(text);
    this.pendingLines.push(text);
    this.sendEventsIfDue();
  }

  /** True when a title or log lines wait for their interval. */
  get eventsPending(): boolean {
    return this.pendingTitle !== undefined || this.pendingLines.length > 0;
  }

  /** Sends the pending title and log lines if the last batch went out long enough ago. */
  sendEventsIfDue(now = Date.now()): void {
    if (!this.eventsPending) return;
    const wait = this.lastEventsAt + EVENT_INTERVAL_MS - now;
    if (wait <= 0) this.sendEvents(now);
    else
      this.eventsTimer ??= setTimeout(() => {
        this.eventsTimer = undefined;
        this.sendEventsIfDue();
      }, wait);
  }

  /** Sends the pending title and log lines now. */
  sendEvents(now = Date.now()): void {
    clearTimeout(this.eventsTimer);
    this.eventsTimer = undefined;
    this.lastEventsAt = now;
    if (this.pendingTitle !== undefined) this.track(this.events.title(this.callId, this.pendingTitle));
    if (this.pendingLines.length > 0) this.track(this.events.log(this.callId, this.pendingLines));
    this.pendingTitle = undefined;
    this.pendingLines = [];
  }

  /** Asks the user through the host, once the events before it are sent; a host gone is no one to ask. */
  async ask(question: AskQuestion): Promise<AskAnswer> {
    this.sendEvents();
    return this.events.ask(this.callId, question).catch((): AskAnswer => ({ refused: 'unavailable' }));
  }

  /** Sends what is pending (and a note of any log dropped); settles once the host has every event. */
  drain(): Promise<void> | undefined {
    if (this.droppedLines > 0) {
      this.pendingLines.push(droppedLogNote("this call's log", this.droppedLines, this.droppedChars));
      this.droppedLines = 0;
    }
    if (this.eventsPending) this.sendEvents();
    return this.lastDelivery;
  }

  /** Puts the title and the last snapshot, if the call had them, in the call's result. */
  addFinal(result: { title?: string; snapshot?: Uint8Array }): void {
    if (this.latestTitle !== undefined) result.title = this.latestTitle;
    if (this.latest !== undefined) result.snapshot = this.latest;
  }

  private track(delivery: Promise<void>): void {
    // A failed delivery means the host stopped listening; the event has nowhere to go.
    this.lastDelivery = delivery.catch(() => undefined);
  }
}
