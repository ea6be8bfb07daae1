// A CancelSignal (call-result.ts) that is a plain object: `aborted` and one `abort` listener,
// which is all the host's pool listens with. Creating an AbortController and listening to its
// signal costs a warm call about 3 µs of the host's thread; this costs next to nothing. Callers
// (the MCP server's direct path) may pass one as a call's `signal`.
import type { AbortListener, CancelSignal } from './call-result.js';

export class CallStop implements CancelSignal {
  aborted = false;
  private listener: AbortListener | undefined;

  addEventListener(_type: 'abort', listener: AbortListener): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.listener === listener) this.listener = undefined;
  }

  /** Stops the call: its listener is told once; a second abort does nothing. */
  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    if (typeof listener === 'function') listener();
    else listener?.handleEvent();
  }
}
