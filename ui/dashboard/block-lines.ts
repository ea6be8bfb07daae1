// A dashboard block as blessed-tagged lines for a given width: the block model's header and body
// (ui/block-view.ts) with colours. Everything a tool produced is sanitized by the model, then has
// its braces escaped here, before it meets a tag.
import blessed from 'blessed';
import { BODY_INDENT, blockBody, blockHeader, type BlockFacts, type BlockState } from '../block-view.js';
import type { Block } from './block.js';

/** The colour of each status's mark. */
const MARK_COLORS: Record<BlockState, string> = {
  running: 'cyan',
  ok: 'green',
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
    rendered: block.rendered,
  };
}

export function blockLines(block: Block, context: DrawContext): string[] {
  const facts = factsOf(block, context.now);
  const header = blockHeader(facts, context.width);
  const color = MARK_COLORS[block.status];
  const head =
    `{${color}-fg}${header.mark}{/${color}-fg} {bold}${blessed.escape(header.tool)}{/bold}` +
    `{gray-fg}${blessed.escape(header.title)}${header.status}{/gray-fg}${header.elapsed ? `  {gray-fg}${header.elapsed}{/gray-fg}` : ''}`;
  const body = blockBody(facts, { width: context.width, expand: context.expand, expandHint: 'Ctrl-O shows all' });
  return [
    head,
    ...body.rows.map((row) => `${BODY_INDENT}${blessed.escape(row)}`),
    ...body.noteRows.map((row) => `${BODY_INDENT}{gray-fg}${blessed.escape(row)}{/gray-fg}`),
  ];
}
