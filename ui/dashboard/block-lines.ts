// A dashboard block as blessed-tagged lines for a given width: the block model's header and body
// (ui/block-view.ts) with colours, unless NO_COLOR, and the question the call waits on. Everything a tool produced is sanitized by the model, then has
// its braces escaped here, before it meets a tag.
import blessed from 'blessed';
import { BODY_INDENT, blockBody, blockHeader, type BlockFacts, type BlockState } from '../block-view.js';
import type { Block } from './block.js';
import { questionLines, replyHint } from '../question-prompt.js';
import { fitColumns } from '../text-width.js';

/** The colour of each status's mark. */
const MARK_COLORS: Record<BlockState, string> = {
  running: 'cyan',
  ok: 'green',
  warning: 'yellow',
  error: 'red',
  timeout: 'yellow',
  cancelled: 'gray',
  crashed: 'red',
  invalid_args: 'red',
  unavailable: 'yellow',
  unknown_tool: 'red',
  busy: 'yellow',
};

export interface DrawContext {
  width: number;
  expand: boolean;
  /** Date.now() for the frame: running blocks' elapsed time and spinner. */
  now: number;
  /** Colours on (off under NO_COLOR). */
  color: boolean;
}

function factsOf(block: Block, now: number): BlockFacts {
  return {
    kind: block.kind,
    state: block.status,
    tool: block.tool,
    title: block.title,
    elapsedMs: block.durationMs ?? now - block.startedAt,
    content: block.content,
    recentLogs: block.logs,
    loggedLines: block.loggedLines,
    rendered: block.rendered,
    queued: block.queued,
  };
}

/** `text` (tags and all) in `color`, or as it is when colour is off. */
function colored(color: string, text: string, context: DrawContext): string {
  return context.color ? `{${color}-fg}${text}{/${color}-fg}` : text;
}

export function blockLines(block: Block, context: DrawContext): string[] {
  const facts = factsOf(block, context.now);
  const header = blockHeader(facts, context.width);
  const head =
    `${colored(MARK_COLORS[block.status], header.mark, context)} {bold}${blessed.escape(header.tool)}{/bold}` +
    `${colored('gray', `${blessed.escape(header.title)}${header.status}`, context)}${header.elapsed ? `  ${colored('gray', header.elapsed, context)}` : ''}`;
  const body = blockBody(facts, { width: context.width, expand: context.expand, expandHint: 'Ctrl-O shows all' });
  const asked = block.question?.question;
  const question = asked
    ? [...questionLines(asked), `${replyHint(asked)} below, then Enter · Esc declines`].map(
        (row) =>
          `${BODY_INDENT}${colored('yellow', blessed.escape(fitColumns(row, context.width - BODY_INDENT.length)), context)}`,
      )
    : [];
  return [
    head,
    ...body.rows.map((row) => `${BODY_INDENT}${blessed.escape(row)}`),
    ...body.noteRows.map((row) => `${BODY_INDENT}${colored('gray', blessed.escape(row), context)}`),
    ...question,
  ];
}
