// `moonpool mcp`: the host's tools served over MCP on stdio. The messages real clients send, in
// their plain forms, take the direct path (direct-path.ts); any other message loads the SDK's own
// server (sdk-path.ts) and is served there, in the order received. stdout carries only the
// protocol; what tools print and the config's problems go to stderr, and while the config has not
// loaded (under --watch) `initialize`'s instructions say why to the client too.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ReloadResult, ToolHost } from '../../core/index.js';
import { formatDiagnostic, formatDiagnosticIn } from '../diagnostic-format.js';
import { formatTool } from '../tool-formats.js';
import { DirectPath } from './direct-path.js';
import { Elicitation } from './elicitation.js';
import { LineTransport } from './line-transport.js';
import type { McpContext } from './mcp-context.js';
import { asPlainMessage } from './plain-requests.js';
import { ResourceReads } from './resource-reads.js';
import type { SdkPath } from './sdk-path.js';
import { readSpillResource } from './spill-resources.js';

function version(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
}

/** Errors named in `initialize`'s instructions; `moonpool check` lists them all. */
const MAX_INSTRUCTED_PROBLEMS = 5;

/**
 * What `initialize` tells the client while no config has loaded (only under --watch does the
 * server start so): why it serves no tools, where stderr, which clients keep in a log, is not seen.
 */
function unloadedInstructions(host: ToolHost): string | undefined {
  if (host.loaded) return undefined;
  const errors = host.diagnostics().filter((diagnostic) => diagnostic.severity === 'error');
  const more = errors.length - MAX_INSTRUCTED_PROBLEMS;
  return [
    `moonpool serves no tools yet: its config ${host.configFile} did not load. It is watched: once it loads, its tools are listed (tools/list_changed).`,
    ...errors.slice(0, MAX_INSTRUCTED_PROBLEMS).map((error) => formatDiagnosticIn(error, dirname(host.configFile))),
    ...(more > 0 ? [`… and ${more} more (moonpool check lists them)`] : []),
  ].join('\n');
}

/** The SDK's path, opened on the first message that needs it; messages wait in order meanwhile. */
class LazySdkPath {
  private path: SdkPath | undefined;
  private opening: Promise<void> | undefined;
  private waiting: unknown[] = [];

  constructor(private readonly open: () => Promise<SdkPath>) {}

  /** Whether any message has gone its way (it may still be loading): only then can it hold a request. */
  get started(): boolean {
    return this.opening !== undefined;
  }

  take(message: unknown): void {
    if (this.path) return this.path.take(message);
    this.waiting.push(message);
    this.opening ??= this.open().then((path) => {
      this.path = path;
      for (const waiting of this.waiting.splice(0)) path.take(waiting);
    });
  }

  async close(): Promise<void> {
    await this.opening?.catch(() => undefined);
    await this.path?.close();
  }
}

/** Serves until the client closes stdin or its end of stdout (or the process is told to stop); resolves then. */
export async function serveMcp(host: ToolHost, stderr: NodeJS.WritableStream): Promise<void> {
  const log = (line: string): void => void stderr.write(`moonpool: ${line}\n`);
  for (const diagnostic of host.diagnostics()) log(formatDiagnostic(diagnostic));
  const resourceReads = new ResourceReads(() => transport.whenRoom());
  const send = (message: Parameters<LineTransport['send']>[0]): Promise<void> => transport.send(message);
  const elicitation = new Elicitation(send);
  const context: McpContext = {
    host,
    log,
    serverInfo: { name: 'moonpool', version: version() },
    instructions: () => unloadedInstructions(host),
    readResource: (uri) => resourceReads.run(() => readSpillResource(host.spillDir, uri)),
    ask: (question, signal) => elicitation.ask(question, signal),
  };
  const direct = new DirectPath(context, send);
  const sdk = new LazySdkPath(async () =>
    (await import('./sdk-path.js')).SdkPath.open(context, send, (requestId) => direct.cancel(requestId)),
  );
  let stopServing: () => void = () => undefined;
  const serving = new Promise<void>((resolve) => (stopServing = resolve));
  const transport = new LineTransport(
    process.stdin,
    process.stdout,
    (message) => {
      if (elicitation.take(message)) return;
      const plain = asPlainMessage(message);
      if (plain) direct.take(plain);
      // A cancellation may name a request the SDK's path is serving.
      if (!plain || (plain.kind === 'cancelled' && sdk.started)) sdk.take(message);
    },
    () => {
      elicitation.close();
      direct.close();
      stopServing();
    },
  );
  // The list as tools/list gives it: a reload that leaves it as it was (an edit of a tool's body) is no news to the client.
  const toolList = (): string => JSON.stringify(host.tools().map((tool) => formatTool(tool, 'mcp')));
  let listed = toolList();
  const onReload = (result: ReloadResult): void => {
    for (const diagnostic of result.diagnostics) log(formatDiagnostic(diagnostic));
    log(
      result.ok
        ? `reloaded: generation ${result.generation}`
        : `reload failed; generation ${result.generation} keeps serving`,
    );
    const now = toolList();
    if (!result.ok || now === listed) return;
    listed = now;
    void send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
  };
  host.on('reload', onReload);
  process.stdin.once('end', stopServing);
  process.stdin.once('close', stopServing);
  // Kept for good, not once: a second signal while closing would otherwise kill the process
  // before the host has stopped the tools' child processes, leaving them behind.
  process.on('SIGINT', stopServing);
  process.on('SIGTERM', stopServing);
  process.on('SIGHUP', stopServing);
  transport.start();
  await serving;
  host.off('reload', onReload);
  transport.close();
  await sdk.close();
}
