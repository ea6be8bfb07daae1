// What both paths of `moonpool mcp` serve from: the host, where tools' output is logged, what
// the server says of itself at `initialize`, the one queue every `resources/read` goes through,
// and how a tool's question reaches the client's user.
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { AskHandler, ToolHost } from '../../core/index.js';

export interface McpContext {
  host: ToolHost;
  log: (line: string) => void;
  serverInfo: { name: string; version: string };
  /** What `initialize` tells the client besides, when there is something to say (why no tools are served). */
  instructions: () => string | undefined;
  /** Serves a `resources/read` of `uri` (see resource-reads.ts). */
  readResource: (uri: string) => Promise<ReadResourceResult>;
  /** Asks the client's user a tool's question (see elicitation.ts). */
  ask: AskHandler;
}

export const SERVER_CAPABILITIES = { tools: { listChanged: true }, resources: {} };
