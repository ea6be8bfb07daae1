// `moonpool check`: one `file:line: message` per problem in the config, then a summary (and on
// stderr, what the config printed while loading). A tool that declares no permissions gets a note
// at its `registry:add` line: it may touch everything. Exits 1 on any error (with `strict`, on any
// warning or note too), to fit a hook or CI.
import type { Diagnostic, ToolHost, ToolStatus } from '../../core/index.js';
import { displayPath, formatDiagnostic } from '../diagnostic-format.js';
import type { Output } from '../open-host.js';
import { sanitizeLines } from '../terminal-text.js';

function fullAccessNote(tool: ToolStatus): string {
  return `${displayPath(tool.file)}:${tool.line}: note: tool '${tool.name}' declares no permissions, so it may touch every file, command and variable (set \`permissions\` in registry:add)`;
}

export function checkConfig(host: ToolHost, output: Output, strict = false): number {
  for (const line of host.loadLogs()) for (const part of sanitizeLines(line)) output.stderr.write(`print: ${part}\n`);
  const diagnostics = host.diagnostics();
  const tools = host.allTools();
  const undeclared = tools.filter((tool) => tool.permissions === null);
  const lines: { diagnostic?: Diagnostic | undefined; text: string }[] = diagnostics.map((diagnostic) => ({
    diagnostic,
    text: formatDiagnostic(diagnostic),
  }));
  // A note goes where its line falls: before its tool's own problems, or the next line of its file.
  for (const tool of undeclared) {
    const at = lines.findIndex(
      ({ diagnostic }) =>
        diagnostic?.tool === tool.name || (diagnostic?.file === tool.file && (diagnostic.line ?? 0) > tool.line),
    );
    lines.splice(at < 0 ? lines.length : at, 0, { text: fullAccessNote(tool) });
  }
  for (const { text } of lines) output.stdout.write(`${sanitizeLines(text).join('\n')}\n`);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const unavailable = tools.filter((tool) => !tool.available).length;
  const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const summary = host.loaded
    ? `${plural(tools.length, 'tool')} loaded${unavailable > 0 ? ` (${unavailable} unavailable)` : ''}`
    : 'the config did not load';
  const notes = undeclared.length > 0 ? `, ${plural(undeclared.length, 'note')}` : '';
  output.stdout.write(`${summary}; ${plural(errors, 'error')}, ${plural(warnings, 'warning')}${notes}\n`);
  return errors > 0 || (strict && warnings + undeclared.length > 0) ? 1 : 0;
}
