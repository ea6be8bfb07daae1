// `moonpool check`: one `file:line: message` per problem in the config, then a summary (and on
// stderr, what the config printed while loading). Exits 1 on any error (with `strict`, on any
// warning too), to fit a hook or CI.
import type { ToolHost } from '../../core/index.js';
import { formatDiagnostic } from '../diagnostic-format.js';
import type { Output } from '../open-host.js';
import { sanitizeLines } from '../terminal-text.js';

export function checkConfig(host: ToolHost, output: Output, strict = false): number {
  for (const line of host.loadLogs()) for (const part of sanitizeLines(line)) output.stderr.write(`print: ${part}\n`);
  const diagnostics = host.diagnostics();
  for (const diagnostic of diagnostics)
    output.stdout.write(`${sanitizeLines(formatDiagnostic(diagnostic)).join('\n')}\n`);
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const tools = host.allTools();
  const unavailable = tools.filter((tool) => !tool.available).length;
  const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;
  const summary = host.loaded
    ? `${plural(tools.length, 'tool')} loaded${unavailable > 0 ? ` (${unavailable} unavailable)` : ''}`
    : 'the config did not load';
  output.stdout.write(`${summary}; ${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`);
  return errors > 0 || (strict && warnings > 0) ? 1 : 0;
}
