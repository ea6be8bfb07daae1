// The baseline of mcp-realistic: a plain MCP server written with the SDK, in JavaScript, serving
// `spin_a` as bench/fixtures/spin does, with the same Lua run in-process by wasmoon: one engine
// created at start, whose loop function (the chunk named by the first argument) the tool's
// handler calls. Nothing of moonpool is loaded.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LuaFactory } from 'wasmoon';

const sourcePath = process.argv[2];
if (!sourcePath) {
  process.stderr.write('usage: mcp-plain-lua-server LUA_FILE (a chunk that returns function(n))\n');
  process.exit(2);
}
const engine = await new LuaFactory().createEngine();
const spin = (await engine.doString(readFileSync(sourcePath, 'utf8'))) as (n: number) => number;

const server = new Server({ name: 'plain-lua', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'spin_a',
      description: 'Runs a CPU-bound loop of n steps and returns its checksum.',
      inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } }, required: ['n'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request): CallToolResult => {
  const n = (request.params.arguments as { n?: unknown } | undefined)?.n;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
    return { content: [{ type: 'text', text: 'args.n: must be an integer, at least 0' }], isError: true };
  return { content: [{ type: 'text', text: String(spin(n)) }] };
});
await server.connect(new StdioServerTransport());
