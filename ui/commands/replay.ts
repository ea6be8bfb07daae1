// `moonpool replay SESSION [--width N] [--expand]`: every block of a session, re-rendered from its
// last snapshot with the current config's `render` — `run` is never called. A tool the config no
// longer defines (or one without `render`) shows its recorded model-facing text. Damage in the
// log is skipped and named on stderr; the records around it are replayed.
import type { ToolHost } from '../../core/index.js';
import { plainBlockLines, renderView, type BlockFacts } from '../block-view.js';
import { UsageError, type CliInput } from '../cli-options.js';
import type { Output } from '../open-host.js';

const DEFAULT_WIDTH = 80;

export async function replaySession(host: ToolHost, input: CliInput, output: Output): Promise<number> {
  const [sessionId, ...extra] = input.positionals;
  if (sessionId === undefined) throw new UsageError('replay needs a session id: moonpool replay SESSION');
  if (extra.length > 0) throw new UsageError(`replay takes one session id (got ${extra.length + 1})`);
  const { records, warnings } = host.resume(sessionId);
  for (const warning of warnings) output.stderr.write(`moonpool: ${warning}\n`);
  if (records.length === 0) {
    output.stderr.write(`moonpool: session ${sessionId} has no ${warnings.length === 0 ? '' : 'readable '}recorded calls\n`);
    return 2;
  }
  const layout = { width: input.width ?? DEFAULT_WIDTH, expand: input.expand, expandHint: '--expand shows all' };
  for (const record of records) {
    const rendered = record.snapshot ? await host.render(record.tool, record.snapshot, renderView(layout)) : undefined;
    const facts: BlockFacts = { kind: 'call', state: record.status, tool: record.tool, title: record.title, elapsedMs: record.durationMs, content: record.content, rendered };
    output.stdout.write(`${plainBlockLines(facts, layout).join('\n')}\n`);
  }
  return 0;
}
