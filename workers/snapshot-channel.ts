// The worker's side of a call's live events, sent over the worker's event port (comlink).
// The runtime decides when a snapshot is taken (see snapshot-box.ts); this sends it, remembers
// the last one for the reply, and `drain` waits until the host has every event of the call.
import type { Remote } from 'comlink';
import { pack } from 'msgpackr';
import type { WorkerEvents } from '../core/protocol.js';

/** Shortest time between two snapshots sent to the host while a tool runs. */
export const SNAPSHOT_INTERVAL_MS = 33;

export class SnapshotChannel {
  private latest: Uint8Array | undefined;
  private latestTitle: string | undefined;
  private lastSentAt = 0;
  private lastDelivery: Promise<void> | undefined;

  constructor(
    private readonly events: Remote<WorkerEvents>,
    private readonly callId: string,
  ) {}

  /** True when the last snapshot went out at least SNAPSHOT_INTERVAL_MS ago. */
  due(now = Date.now()): boolean {
    return now - this.lastSentAt >= SNAPSHOT_INTERVAL_MS;
  }

  send(state: unknown): void {
    // msgpackr returns a view into its shared buffer: copy before it crosses threads.
    this.latest = new Uint8Array(pack(state));
    this.lastSentAt = Date.now();
    this.track(this.events.snapshot(this.callId, this.latest));
  }

  title(text: string): void {
    this.latestTitle = text;
    this.track(this.events.title(this.callId, text));
  }

  log(text: string): void {
    this.track(this.events.log(this.callId, text));
  }

  /**
   * Settles once the host has received every event sent so far; undefined when the call sent
   * none (most calls), so there is nothing to wait for.
   */
  drain(): Promise<void> | undefined {
    return this.lastDelivery;
  }

  /** The title and the last snapshot, for the call's result. */
  final(): { title?: string; snapshot?: Uint8Array } {
    return {
      ...(this.latestTitle === undefined ? {} : { title: this.latestTitle }),
      ...(this.latest === undefined ? {} : { snapshot: this.latest }),
    };
  }

  private track(delivery: Promise<void>): void {
    // A failed delivery means the host stopped listening; the event has nowhere to go.
    this.lastDelivery = delivery.catch(() => undefined);
  }
}
