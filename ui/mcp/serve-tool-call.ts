// One `tools/call` run on the host for an MCP client, whichever path brought it (direct-path.ts for
// plain calls, the SDK's handler in sdk-path.ts for the rest): what the tool prints goes to the
// log, its states and titles become progress notifications when the client sent a progress token,
// its questions go to the client (elicitation.ts) saying which tool asks, and its CallResult becomes a CallToolResult — but for a tool the server does not have, which
// the specification answers with a JSON-RPC error (-32602), not a tool result.
import type { CallToolResult, ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { CallResult } from '../../core/index.js';
import { callToolResult } from './call-tool-result.js';
import { INVALID_PARAMS } from './json-rpc.js';
import type { McpContext } from './mcp-context.js';
import { ProgressReporter } from './progress-reporter.js';

/** The answer to a call: its result, or (thrown, with its JSON-RPC code) that there is no such tool. */
function resultOf(result: CallResult): CallToolResult {
  if (result.status === 'unknown_tool') throw Object.assign(new Error(result.content), { code: INVALID_PARAMS });
  return callToolResult(result);
}

export function serveToolCall(
  { host, log, ask }: McpContext,
  name: string,
  args: Record<string, unknown>,
  progressToken: string | number | undefined,
  signal: AbortSignal,
  notify: (notification: ServerNotification) => Promise<void>,
): Promise<CallToolResult> {
  const onLog = (text: string): void => log(`${name}: ${text}`);
  // Several tools may ask at once: the client's user is told which one does.
  const onAsk: typeof ask = (question, questionSignal) =>
    ask({ ...question, question: `${name} asks: ${question.question}` }, questionSignal);
  // Without a progress token there is nothing to end afterwards: no async step of its own.
  if (progressToken === undefined) return host.call(name, args, { signal, onLog, onAsk }).then(resultOf);
  const progress = new ProgressReporter(host, name, (update) =>
    notify({ method: 'notifications/progress', params: { progressToken, ...update } }),
  );
  const options = {
    signal,
    onLog,
    onTitle: (title: string) => progress.setTitle(title),
    onSnapshot: (bytes: Uint8Array) => progress.setSnapshot(bytes),
    onQueued: (place: number) => progress.setQueued(place),
    onStart: () => progress.setStarted(),
    onAsk,
  };
  return host
    .call(name, args, options)
    .then(resultOf)
    .finally(() => progress.end());
}
