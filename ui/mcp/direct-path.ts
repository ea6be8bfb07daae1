// The direct path of `moonpool mcp`: the messages plain-requests.ts recognises are served here on
// the host, without the SDK's per-request schemas and bookkeeping, answered as the SDK would answer
// them. A call the client cancels (`notifications/cancelled`) is stopped and gets no answer;
// closing stops every call still running. A client that reuses an id while its first call runs
// gets both calls run, and cancelling the id stops both (the SDK, keyed by id, stops only the last).
import type { JSONRPCMessage, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import { formatTool } from '../tool-formats.js';
import { failureAnswer } from './json-rpc.js';
import { SERVER_CAPABILITIES, type McpContext } from './mcp-context.js';
import type { PlainMessage, RequestId } from './plain-requests.js';
import { negotiatedVersion } from './protocol-version.js';
import { serveToolCall } from './serve-tool-call.js';
import { listSpillResources } from './spill-resources.js';

type Send = (message: JSONRPCMessage) => Promise<void>;
type PlainCall = Extract<PlainMessage, { kind: 'tools/call' }>;

export class DirectPath {
  /** The calls running under each id: one, unless the client reused an id still in flight. */
  private readonly running = new Map<RequestId, AbortController[]>();

  constructor(
    private readonly context: McpContext,
    private readonly send: Send,
  ) {}

  take(message: PlainMessage): void {
    switch (message.kind) {
      case 'tools/call':
        void this.call(message);
        return;
      case 'cancelled':
        this.cancel(message.requestId);
        return;
      case 'initialized':
        return;
      case 'initialize': {
        const instructions = this.context.instructions();
        this.answer(message.id, {
          protocolVersion: negotiatedVersion(message.protocolVersion),
          capabilities: SERVER_CAPABILITIES,
          serverInfo: this.context.serverInfo,
          ...(instructions === undefined ? {} : { instructions }),
        });
        return;
      }
      case 'ping':
        this.answer(message.id, {});
        return;
      case 'tools/list':
        this.answer(message.id, { tools: this.context.host.tools().map((tool) => formatTool(tool, 'mcp')) });
        return;
      case 'resources/list':
        this.answerWhenDone(
          message.id,
          listSpillResources(this.context.host.spillDir).then((resources) => ({ resources })),
        );
        return;
      case 'resources/read':
        this.answerWhenDone(message.id, this.context.readResource(message.uri));
        return;
    }
  }

  /** Stops the calls running under `id`, unanswered. */
  cancel(id: RequestId): void {
    for (const stop of this.running.get(id) ?? []) stop.abort();
  }

  /** The connection closed: every call still running is stopped, unanswered. */
  close(): void {
    for (const calls of this.running.values()) for (const stop of calls) stop.abort();
    this.running.clear();
  }

  private answer(id: RequestId, result: Record<string, unknown>): void {
    this.send({ jsonrpc: '2.0', id, result }).catch(() => undefined);
  }

  private answerWhenDone(id: RequestId, result: Promise<Record<string, unknown>>): void {
    result.then(
      (value) => this.answer(id, value),
      (error: unknown) => this.send(failureAnswer(id, error)).catch(() => undefined),
    );
  }

  private async call(call: PlainCall): Promise<void> {
    const stop = new AbortController();
    const calls = this.running.get(call.id);
    if (calls) calls.push(stop);
    else this.running.set(call.id, [stop]);
    const notify = (notification: ServerNotification): Promise<void> =>
      stop.signal.aborted ? Promise.resolve() : this.send({ jsonrpc: '2.0', ...notification });
    try {
      const result = await serveToolCall(this.context, call.name, call.args, call.progressToken, stop.signal, notify);
      if (!stop.signal.aborted) this.answer(call.id, result);
    } catch (error) {
      if (!stop.signal.aborted) this.send(failureAnswer(call.id, error)).catch(() => undefined);
    } finally {
      const left = this.running.get(call.id)?.filter((other) => other !== stop);
      if (left?.length) this.running.set(call.id, left);
      else this.running.delete(call.id);
    }
  }
}
