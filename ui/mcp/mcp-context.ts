// What both paths of `moonpool mcp` serve from: the host, where tools' output is logged, and what
// the server says of itself at `initialize`.
import type { ToolHost } from '../../core/index.js';

export interface McpContext {
  host: ToolHost;
  log: (line: string) => void;
  serverInfo: { name: string; version: string };
}

export const SERVER_CAPABILITIES = { tools: { listChanged: true }, resources: {} };
