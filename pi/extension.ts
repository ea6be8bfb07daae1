// The pi extension: starts a moonpool host on the user's config, registers every available tool
// under its own name, marks failed calls as errors in pi, and closes the host at pi's
// session_shutdown so nothing keeps Node alive. A config that fails is reported through pi, never
// thrown into pi's start; with no config of the user's, no tools are registered (not the demo's).
import { MoonpoolError, resolveConfig, ToolHost, type ToolHostOptions } from '../core/index.js';
import { UsageError } from '../ui/cli-options.js';
import { formatDiagnostic } from '../ui/diagnostic-format.js';
import { retentionOptions } from '../ui/retention-option.js';
import type { PiContext, PiExtensionApi } from './pi-api.js';
import { piTool } from './moonpool-tool.js';
import { readDetails } from './tool-details.js';

export type MoonpoolExtension = (pi: PiExtensionApi) => Promise<void>;

interface Started {
  host: ToolHost | undefined;
  problems: string[];
}

/** A pi extension factory over a moonpool host started with `options` (default: the usual config lookup). */
export function createMoonpoolExtension(options: ToolHostOptions = {}): MoonpoolExtension {
  return async function moonpool(pi: PiExtensionApi): Promise<void> {
    const { host, problems } = await startHost(options);
    const tools = new Set<string>();
    // pi converts arguments to the schema's types before a tool sees them (7 becomes "7"); moonpool
    // checks the arguments the model wrote, so the model gets the answer `moonpool call` gives.
    const modelArgs = new Map<string, unknown>();
    const takeModelArgs = (toolCallId: string): unknown => {
      const args = modelArgs.get(toolCallId);
      modelArgs.delete(toolCallId);
      return args;
    };
    if (host) {
      for (const tool of host.tools()) {
        pi.registerTool(piTool(host, tool, takeModelArgs));
        tools.add(tool.name);
      }
    }
    pi.on('tool_execution_start', (event) => {
      if (tools.has(event.toolName)) modelArgs.set(event.toolCallId, event.args);
    });
    pi.on('tool_execution_end', (event) => void modelArgs.delete(event.toolCallId));
    // With a tool_call handler, pi delivers the events before it (tool_execution_start among them)
    // to the extensions before it runs the tool.
    pi.on('tool_call', () => undefined);
    pi.on('session_start', (_event, context) => report(problems, context));
    // pi marks a result as an error only when execute throws, which would drop `details` (the last
    // state, so the row could not draw the failed call's render). The result is returned whole and
    // marked here instead.
    pi.on('tool_result', (event) => {
      if (!tools.has(event.toolName)) return undefined;
      const status = readDetails(event.details)?.status;
      return status === undefined || status === 'ok' || status === 'running' ? undefined : { isError: true };
    });
    pi.on('session_shutdown', () => host?.close());
  };
}

async function startHost(options: ToolHostOptions): Promise<Started> {
  try {
    const config = resolveConfig(options.config);
    if (config.source === 'bundled') {
      return {
        host: undefined,
        problems: [
          `moonpool: no config found ($MOONPOOL_CONFIG, ${config.userFile ?? '~/.config/moonpool/init.lua'}); no moonpool tools are registered`,
        ],
      };
    }
    // The history a user keeps (`$MOONPOOL_KEEP_SESSIONS`), as for the CLI; options given win.
    const host = await ToolHost.start({ ...retentionOptions(undefined), ...options, config: config.file });
    const problems = host
      .diagnostics()
      .filter((diagnostic) => diagnostic.severity === 'error')
      .map((diagnostic) => `moonpool: ${formatDiagnostic(diagnostic)}`);
    return { host, problems };
  } catch (error) {
    const message =
      error instanceof MoonpoolError || error instanceof UsageError
        ? error.message
        : `could not start: ${(error as Error).message}`;
    return { host: undefined, problems: [`moonpool: ${message}`] };
  }
}

/** Problems go to pi's UI; pi's print and JSON modes have none, so there they go to stderr. */
function report(problems: string[], context: PiContext): void {
  if (problems.length === 0) return;
  if (context.hasUI) context.ui.notify(problems.join('\n'), 'error');
  else process.stderr.write(`${problems.join('\n')}\n`);
}
