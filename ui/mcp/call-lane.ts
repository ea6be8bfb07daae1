// The short way for the requests an MCP client sends most: a plain `tools/call`
// (tool-call-request.ts) goes straight to the host and its answer straight to the transport,
// without the SDK's per-request schemas, handler lookup and bookkeeping. It answers as the SDK
// would: a call the client cancels (`notifications/cancelled`) is stopped and gets no reply, and
// closing the connection stops every call still running.
import type { JSONRPCMessage, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { serveToolCall, type ToolCallContext } from './serve-tool-call.js';
import { asToolCallRequest, cancelledRequestId, type RequestId, type ToolCallRequest } from './tool-call-request.js';

export class CallLane {
  private readonly running = new Map<RequestId, AbortController>();

  constructor(
    private readonly context: ToolCallContext,
    private readonly send: (message: JSONRPCMessage) => Promise<void>,
  ) {}

  /**
   * Serves `message` if it is a plain `tools/call` and says so; otherwise it is the SDK's. A
   * cancellation stops the lane's call of that id and is still passed on, for the SDK's requests.
   */
  take(message: unknown): boolean {
    const call = asToolCallRequest(message);
    if (call !== undefined) {
      void this.serve(call);
      return true;
    }
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined) this.running.get(cancelled)?.abort();
    return false;
  }

  /** The connection closed: every call still running is stopped, unanswered. */
  close(): void {
    for (const stop of this.running.values()) stop.abort();
    this.running.clear();
  }

  private async serve(call: ToolCallRequest): Promise<void> {
    const stop = new AbortController();
    this.running.set(call.id, stop);
    try {
      const notify = (notification: ServerNotification): Promise<void> => (stop.signal.aborted ? Promise.resolve() : this.send({ jsonrpc: '2.0', ...notification }));
      const result = await serveToolCall(this.context, call.name, call.args, call.progressToken, stop.signal, notify);
      if (!stop.signal.aborted) await this.send({ jsonrpc: '2.0', id: call.id, result });
    } catch {
      // The transport is gone: there is no one to answer.
    } finally {
      if (this.running.get(call.id) === stop) this.running.delete(call.id);
    }
  }
}
