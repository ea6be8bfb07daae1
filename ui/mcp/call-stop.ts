// How the direct path stops a call the client cancelled: the `aborted` flag and one `abort`
// listener the host's pool needs (core's CancelSignal), without an AbortController's event target.
import type { AbortListener, CancelSignal } from '../../core/index.js';

export class CallStop implements CancelSignal {
  aborted = false;
  private listener: AbortListener | undefined;

  addEventListener(_type: 'abort', listener: AbortListener): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: AbortListener): void {
    if (this.listener === listener) this.listener = undefined;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listener = this.listener;
    this.listener = undefined;
    if (typeof listener === 'function') listener();
    else listener?.handleEvent();
  }
}
