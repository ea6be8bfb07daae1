// The worker's end of one call's event channel (comlink over a MessageChannel). Snapshots are
// coalesced: at most one every SNAPSHOT_INTERVAL_MS, latest wins, and `flush` sends the last.
import { releaseProxy, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import type { MessagePort } from 'node:worker_threads';
import { pack } from 'msgpackr';
import type { CallEvents } from '../core/protocol.js';

/** Shortest time between two snapshots sent to the host. */
export const SNAPSHOT_INTERVAL_MS = 33;

export class SnapshotChannel {
  private readonly events: Remote<CallEvents>;
  private latest: Uint8Array | undefined;
  private latestTitle: string | undefined;
  private pending = false;
  private lastSentAt = 0;

  constructor(private readonly port: MessagePort) {
    this.events = wrap<CallEvents>(nodeEndpoint(port));
  }

  show(state: unknown): void {
    // msgpackr returns a view into its shared buffer: copy before it crosses threads.
    this.latest = new Uint8Array(pack(state));
    this.pending = true;
    if (Date.now() - this.lastSentAt >= SNAPSHOT_INTERVAL_MS) this.flush();
  }

  title(text: string): void {
    this.latestTitle = text;
    this.events.title(text).catch(ignoreClosedChannel);
  }

  log(text: string): void {
    this.events.log(text).catch(ignoreClosedChannel);
  }

  flush(): void {
    if (!this.pending || !this.latest) return;
    this.pending = false;
    this.lastSentAt = Date.now();
    this.events.snapshot(this.latest).catch(ignoreClosedChannel);
  }

  /** The title and the last snapshot, for the call's result. */
  final(): { title?: string; snapshot?: Uint8Array } {
    return {
      ...(this.latestTitle === undefined ? {} : { title: this.latestTitle }),
      ...(this.latest === undefined ? {} : { snapshot: this.latest }),
    };
  }

  close(): void {
    this.events[releaseProxy]();
    this.port.close();
  }
}

function ignoreClosedChannel(): void {
  // The host stopped listening (the call ended or was cancelled): nothing to deliver to.
}
