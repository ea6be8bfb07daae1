// `moonpool replay SESSION|last [--width N] [--expand]`: every block of a session, in the order
// the calls started, re-rendered from its last snapshot with the current config's `render` — `run`
// is never called — with what each call asked the user and the answers. A tool the config no
// longer defines (or one without `render`) shows its recorded model-facing text. Damage in the log
// is skipped and named on stderr; the records around it are replayed. Each block is written as its record is read, so a session of any length
// replays holding one record at a time.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defaultStateDir, SESSION_ID_PATTERN, summarizeSessions, type ToolHost } from '../../core/index.js';
import { BODY_INDENT, plainBlockLines, renderView, type BlockFacts } from '../block-view.js';
import { exchangeLine } from '../question-prompt.js';
import { UsageError, type CliInput } from '../cli-options.js';
import { commandAsRun } from '../invocation.js';
import type { Output } from '../open-host.js';
import { sanitizeLine } from '../terminal-text.js';

const DEFAULT_WIDTH = 80;

/** Whether `id` has a log in the state dir (its own, or one a second writer kept beside it). */
function sessionExists(stateDir: string, id: string): boolean {
  try {
    return readdirSync(join(stateDir, 'sessions')).some((name) => name.startsWith(`${id}.`) && name.endsWith('.log'));
  } catch {
    return false;
  }
}

/**
 * The session `replay` shows — `last` is the newest, the last line of `moonpool sessions`, named
 * on stderr — set as the command's session, so the retention rule applied at start keeps it.
 */
export function withReplayTarget(input: CliInput, output: Output): CliInput {
  const [named, ...extra] = input.positionals;
  if (named === undefined)
    throw new UsageError(`replay needs a session id (or last): ${commandAsRun()} replay SESSION`);
  if (extra.length > 0) throw new UsageError(`replay takes one session id (got ${extra.length + 1})`);
  let session = named;
  if (named === 'last') {
    const stateDir = resolve(input.stateDir ?? defaultStateDir());
    const newest = summarizeSessions(stateDir).at(-1);
    if (newest === undefined) throw new UsageError(`there is no session to replay in ${stateDir}`, 'replay', false);
    session = newest.id;
    output.stderr.write(`moonpool: replaying ${session}, the newest session\n`);
  } else if (!SESSION_ID_PATTERN.test(named)) {
    throw new UsageError(
      `'${named}' is not a session id (1-64 letters, digits, _ and -; see ${commandAsRun()} sessions)`,
    );
  } else if (!sessionExists(resolve(input.stateDir ?? defaultStateDir()), named)) {
    throw new UsageError(
      `no session '${named}' in ${resolve(input.stateDir ?? defaultStateDir())}; '${commandAsRun()} sessions' lists them`,
      'replay',
      false,
    );
  }
  return { ...input, positionals: [session], session };
}

export async function replaySession(host: ToolHost, input: CliInput, output: Output): Promise<number> {
  // withReplayTarget has resolved the id (and `last`) before the host started.
  const [sessionId = ''] = input.positionals;
  const layout = { width: input.width ?? DEFAULT_WIDTH, expand: input.expand, expandHint: '--expand shows all' };
  let records = 0;
  let warnings = 0;
  for await (const entry of host.sessionEntries(sessionId)) {
    if ('warning' in entry) {
      warnings++;
      // A warning may quote what the log holds (a call's id, tool, a line it left out).
      output.stderr.write(`moonpool: ${sanitizeLine(entry.warning)}\n`);
      continue;
    }
    records++;
    const { record } = entry;
    const rendered = record.snapshot ? await host.render(record.tool, record.snapshot, renderView(layout)) : undefined;
    const facts: BlockFacts = {
      kind: 'call',
      state: record.status,
      tool: record.tool,
      title: record.title,
      elapsedMs: record.durationMs,
      content: record.content,
      rendered,
    };
    const asked = (record.questions ?? []).map((exchange) => `${BODY_INDENT}${exchangeLine(exchange)}`);
    output.stdout.write(`${[...plainBlockLines(facts, layout), ...asked].join('\n')}\n`);
  }
  if (records === 0) {
    output.stderr.write(`moonpool: session ${sessionId} has no ${warnings === 0 ? '' : 'readable '}recorded calls\n`);
    return 2;
  }
  return 0;
}
