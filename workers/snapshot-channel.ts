// The worker's side of a call's live events, sent over the worker's event port (comlink).
// Snapshots are coalesced: at most one every SNAPSHOT_INTERVAL_MS, latest wins, and `drain`
// sends the last one and waits until the host has taken every event, before the call's reply.
import type { Remote } from 'comlink';
import { pack } from 'msgpackr';
import type { WorkerEvents } from '../core/protocol.js';

/** Shortest time between two snapshots sent to the host. */
export const SNAPSHOT_INTERVAL_MS = 33;

export class SnapshotChannel {
  private latest: Uint8Array | undefined;
  private latestTitle: string | undefined;
  private pending = false;
  private lastSentAt = 0;
  private lastDelivery: Promise<void> | undefined;

  constructor(
    private readonly events: Remote<WorkerEvents>,
    private readonly callId: string,
  ) {}

  show(state: unknown): void {
    // msgpackr returns a view into its shared buffer: copy before it crosses threads.
    this.latest = new Uint8Array(pack(state));
    this.pending = true;
    if (Date.now() - this.lastSentAt >= SNAPSHOT_INTERVAL_MS) this.flush();
  }

  title(text: string): void {
    this.latestTitle = text;
    this.track(this.events.title(this.callId, text));
  }

  log(text: string): void {
    this.track(this.events.log(this.callId, text));
  }

  /**
   * Sends the pending snapshot; the promise settles once the host has received every event of
   * the call. Undefined when the call sent no events (most calls): nothing to wait for.
   */
  drain(): Promise<void> | undefined {
    this.flush();
    return this.lastDelivery;
  }

  /** The title and the last snapshot, for the call's result. */
  final(): { title?: string; snapshot?: Uint8Array } {
    return {
      ...(this.latestTitle === undefined ? {} : { title: this.latestTitle }),
      ...(this.latest === undefined ? {} : { snapshot: this.latest }),
    };
  }

  private flush(): void {
    if (!this.pending || !this.latest) return;
    this.pending = false;
    this.lastSentAt = Date.now();
    this.track(this.events.snapshot(this.callId, this.latest));
  }

  private track(delivery: Promise<void>): void {
    // A failed delivery means the host stopped listening; the event has nowhere to go.
    this.lastDelivery = delivery.catch(() => undefined);
  }
}
