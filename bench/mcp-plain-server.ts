// The baseline of mcp-vs-plain-server: a plain MCP server written with the SDK, in JavaScript,
// serving the same `echo` tool as bench/fixtures/echo over stdio. Nothing of moonpool is loaded.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'plain-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'echo',
      description: 'Returns its text.',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
  const text = (request.params.arguments as { text?: unknown } | undefined)?.text;
  if (typeof text !== 'string')
    return { content: [{ type: 'text', text: 'args.text: must be string' }], isError: true };
  return { content: [{ type: 'text', text }] };
});
await server.connect(new StdioServerTransport());
