// What both paths of `moonpool mcp` serve from: the host, where tools' output is logged, what
// the server says of itself at `initialize`, and the one queue every `resources/read` goes through.
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../../core/index.js';

export interface McpContext {
  host: ToolHost;
  log: (line: string) => void;
  serverInfo: { name: string; version: string };
  /** Serves a `resources/read` of `uri` (see resource-reads.ts). */
  readResource: (uri: string) => Promise<ReadResourceResult>;
}

export const SERVER_CAPABILITIES = { tools: { listChanged: true }, resources: {} };
