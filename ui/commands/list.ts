// `moonpool list`: the available tools, as a table, as JSON, or in a model API's exact shape. The
// table and the JSON say what each tool may touch: its declared permissions, or full access
// (`"permissions": null` in the JSON) for a tool that declares none.
import { describePermissions, type ToolHost, type ToolStatus } from '../../core/index.js';
import { UsageError, type CliInput } from '../cli-options.js';
import { commandAsRun } from '../invocation.js';
import { displayPath } from '../diagnostic-format.js';
import type { Output } from '../open-host.js';
import { sanitizeLine } from '../terminal-text.js';
import { formatTool, isToolFormat, TOOL_FORMATS } from '../tool-formats.js';

export function listTools(host: ToolHost, input: CliInput, output: Output): number {
  if (input.format !== undefined) {
    if (!isToolFormat(input.format))
      throw new UsageError(`--format takes one of ${TOOL_FORMATS.join(', ')} (got '${input.format}')`);
    const format = input.format;
    output.stdout.write(
      `${JSON.stringify(
        host.tools().map((tool) => formatTool(tool, format)),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  if (input.json) {
    output.stdout.write(`${JSON.stringify(host.tools(), null, 2)}\n`);
    return 0;
  }
  const all = host.allTools();
  const width = Math.max(4, ...all.map((tool) => tool.name.length));
  const permissionsLine = (tool: ToolStatus): string =>
    `${' '.repeat(width)}  ${sanitizeLine(describePermissions(tool.permissions))}\n`;
  for (const tool of all.filter((entry) => entry.available)) {
    output.stdout.write(`${tool.name.padEnd(width)}  ${sanitizeLine(tool.description.split('\n')[0] ?? '')}\n`);
    output.stdout.write(permissionsLine(tool));
  }
  for (const tool of all) {
    if (tool.available) continue;
    output.stdout.write(`${tool.name.padEnd(width)}  (unavailable: ${sanitizeLine(tool.unavailableReason ?? '')})\n`);
    output.stdout.write(permissionsLine(tool));
  }
  if (all.length === 0) output.stdout.write(`no tools in ${displayPath(host.configFile)}\n`);
  writeProblemsNotice(host, output);
  return 0;
}

/** `moonpool: N problems in the config; run '… check' to see them` on stderr, when it has errors. */
export function writeProblemsNotice(host: ToolHost, output: Output): void {
  const errors = host.diagnostics().filter((diagnostic) => diagnostic.severity === 'error').length;
  if (errors > 0)
    output.stderr.write(
      `moonpool: ${errors} problem${errors === 1 ? '' : 's'} in the config; run '${commandAsRun()} check' to see them\n`,
    );
}
