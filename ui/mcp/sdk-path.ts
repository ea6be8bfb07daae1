// The MCP SDK's own server, for the messages plain-requests.ts does not recognise: each is checked
// (json-rpc-check.ts answers what the SDK would drop without a word) and handed to the SDK already
// parsed; a cancel the SDK acts on stops the direct path's calls of that id too. Loaded on the
// first such message, so a client that sends only plain messages never loads the SDK or its schemas.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { formatTool } from '../tool-formats.js';
import { cancelledRequestId } from './cancel-request.js';
import { checkMessage } from './json-rpc-check.js';
import { SERVER_CAPABILITIES, type McpContext } from './mcp-context.js';
import type { RequestId } from './plain-requests.js';
import { serveToolCall } from './serve-tool-call.js';
import { listSpillResources } from './spill-resources.js';

export class SdkPath {
  private readonly server: Server;
  private readonly transport: Transport = {
    start: () => Promise.resolve(),
    send: (message) => this.send(message),
    close: () => {
      this.transport.onclose?.();
      return Promise.resolve();
    },
  };

  private constructor(
    context: McpContext,
    private readonly send: (message: JSONRPCMessage) => Promise<void>,
    private readonly cancelDirect: (requestId: RequestId) => void,
  ) {
    const { host } = context;
    const instructions = context.instructions();
    this.server = new Server(context.serverInfo, {
      capabilities: SERVER_CAPABILITIES,
      ...(instructions === undefined ? {} : { instructions }),
    });
    this.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: host.tools().map((tool) => formatTool(tool, 'mcp')),
    }));
    // The calls the direct path leaves here: a `task`, other `_meta`, other params.
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra): Promise<CallToolResult> => {
      const { name, arguments: args = {}, _meta: meta } = request.params;
      return serveToolCall(context, name, args, meta?.progressToken, extra.signal, (notification) =>
        extra.sendNotification(notification),
      );
    });
    this.server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: await listSpillResources(host.spillDir),
    }));
    this.server.setRequestHandler(ReadResourceRequestSchema, (request) => context.readResource(request.params.uri));
  }

  static async open(
    context: McpContext,
    send: (message: JSONRPCMessage) => Promise<void>,
    cancelDirect: (requestId: RequestId) => void,
  ): Promise<SdkPath> {
    const path = new SdkPath(context, send, cancelDirect);
    await path.server.connect(path.transport);
    return path;
  }

  take(message: unknown): void {
    const cancelled = cancelledRequestId(message);
    if (cancelled !== undefined) this.cancelDirect(cancelled);
    const verdict = checkMessage(message);
    if (verdict.kind === 'forward') this.transport.onmessage?.(verdict.message);
    else if (verdict.kind === 'answer') void this.send(verdict.error);
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
