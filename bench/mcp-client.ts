// An MCP server started over stdio and driven by the SDK's client, as the MCP scenarios compare
// them: connected and listed, the time that took, and a check that it serves the tool measured.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export interface McpServer {
  name: string;
  /** Node's arguments: the script and its own. */
  command: string[];
}

/** Starts `server` with XDG_STATE_HOME=`stateDir`; `ms` is the time to connect and list its tools. */
export async function connectMcp(
  server: McpServer,
  stateDir: string,
  tool: string,
): Promise<{ client: Client; ms: number }> {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: server.command,
    stderr: 'ignore',
    env: { ...process.env, XDG_STATE_HOME: stateDir },
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (!tools.some((entry) => entry.name === tool)) {
    await client.close();
    throw new Error(`${server.name} serves no ${tool} tool`);
  }
  return { client, ms: performance.now() - started };
}

/** The text of a tools/call's first content block; throws on an error result. */
export async function callText(client: Client, tool: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name: tool, arguments: args });
  const content = result.content as { text?: string }[];
  const text = content[0]?.text;
  if (result.isError || typeof text !== 'string') throw new Error(`${tool} answered ${JSON.stringify(result)}`);
  return text;
}
