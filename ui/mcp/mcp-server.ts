// `moonpool mcp`: the host's tools served over MCP on stdio: plain tool calls by the call lane,
// everything else by the SDK's own server. stdout carries only the protocol; what tools print and
// the config's problems go to stderr.
import { readFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolHost } from '../../core/index.js';
import { formatDiagnostic } from '../diagnostic-format.js';
import { formatTool } from '../tool-formats.js';
import { CallLane } from './call-lane.js';
import { LineTransport } from './line-transport.js';
import { serveToolCall } from './serve-tool-call.js';
import { listSpillResources, readSpillResource } from './spill-resources.js';

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

export function createMcpServer(host: ToolHost, log: (line: string) => void): Server {
  const server = new Server({ name: 'moonpool', version: version() }, { capabilities: { tools: { listChanged: true }, resources: {} } });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: host.tools().map((tool) => formatTool(tool, 'mcp')) }));

  // Calls the lane (call-lane.ts) leaves to the SDK: a `task`, other `_meta`, other params.
  server.setRequestHandler(CallToolRequestSchema, (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args = {}, _meta: meta } = request.params;
    return serveToolCall({ host, log }, name, args, meta?.progressToken, extra.signal, (notification) => extra.sendNotification(notification));
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listSpillResources(host.spillDir) }));
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readSpillResource(host.spillDir, request.params.uri));

  host.on('reload', (result) => {
    for (const diagnostic of result.diagnostics) log(formatDiagnostic(diagnostic));
    log(result.ok ? `reloaded: generation ${result.generation}` : `reload failed; generation ${result.generation} keeps serving`);
    if (result.ok) server.sendToolListChanged().catch(() => undefined);
  });
  return server;
}

/** Serves until the client closes stdin (or the process is told to stop); resolves then. */
export async function serveMcp(host: ToolHost, stderr: NodeJS.WritableStream): Promise<void> {
  const log = (line: string): void => void stderr.write(`moonpool: ${line}\n`);
  for (const diagnostic of host.diagnostics()) log(formatDiagnostic(diagnostic));
  const server = createMcpServer(host, log);
  const transport = new LineTransport(process.stdin, process.stdout);
  transport.lane = new CallLane({ host, log }, (message) => transport.send(message));
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await server.close();
}
