// A block drawn as blessed-tagged lines for a given width: a header (status mark or spinner,
// tool, title, status, elapsed time) and the body (the tool's render, or the default block — the
// model-facing text — with a dim line saying why). Everything a tool produced is sanitized, then
// has its braces escaped, before it meets a tag.
import blessed from 'blessed';
import { sanitizeLine, sanitizeLines } from '../terminal-text.js';
import { columns, fitColumns } from '../text-width.js';
import { COLLAPSED_BODY_LINES, STATUS_MARKS } from '../block-format.js';
import type { Block, BlockStatus } from './block.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const BODY_INDENT = '  ';

/** The colour of each finished status's mark (the marks themselves are block-format's). */
const MARK_COLORS: Record<Exclude<BlockStatus, 'running'>, string> = {
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
  now: number;
  frame: number;
}

function escapeText(text: string): string {
  return blessed.escape(text);
}

function elapsed(block: Block, now: number): string {
  const ms = block.durationMs ?? now - block.startedAt;
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

export function headerLine(block: Block, context: DrawContext): string {
  const mark =
    block.status === 'running'
      ? `{cyan-fg}${SPINNER[context.frame % SPINNER.length]}{/cyan-fg}`
      : `{${MARK_COLORS[block.status]}-fg}${STATUS_MARKS[block.status]}{/${MARK_COLORS[block.status]}-fg}`;
  const time = block.kind === 'call' ? elapsed(block, context.now) : '';
  const status = block.running || block.status === 'ok' || block.kind === 'note' ? '' : `  ${block.status}`;
  const room = context.width - columns(block.tool) - columns(status) - columns(time) - 6;
  const title = block.title ? `  ${fitColumns(sanitizeLine(block.title), Math.max(0, room))}` : '';
  return `${mark} {bold}${escapeText(block.tool)}{/bold}{gray-fg}${escapeText(title)}${status}{/gray-fg}  {gray-fg}${time}{/gray-fg}`;
}

function collapse(lines: string[], expand: boolean): string[] {
  if (expand || lines.length <= COLLAPSED_BODY_LINES) return lines;
  return [...lines.slice(0, COLLAPSED_BODY_LINES - 1), `… ${lines.length - COLLAPSED_BODY_LINES + 1} more lines (Ctrl-O shows all)`];
}

/** The body's plain lines (not yet escaped) and the dim note under them, if any. */
function bodyLines(block: Block, context: DrawContext): { lines: string[]; note?: string } {
  const rendered = block.rendered;
  if (rendered?.ok) return { lines: collapse(rendered.lines.map((line) => sanitizeLine(line)), context.expand) };
  const note = rendered && !rendered.ok && rendered.reason ? `(${sanitizeLine(rendered.reason)}; showing the default block)` : undefined;
  if (block.running) {
    const recent = block.logs.slice(-3).map((line) => sanitizeLine(line));
    return { lines: recent.length > 0 ? recent : ['running…'], ...(note ? { note } : {}) };
  }
  const text = sanitizeLines(block.content.replace(/\n$/, ''));
  return { lines: collapse(text, context.expand), ...(note ? { note } : {}) };
}

export function blockLines(block: Block, context: DrawContext): string[] {
  const width = context.width - BODY_INDENT.length;
  const { lines, note } = bodyLines(block, context);
  const body = lines.map((line) => `${BODY_INDENT}${escapeText(fitColumns(line, width))}`);
  if (note) body.push(`${BODY_INDENT}{gray-fg}${escapeText(fitColumns(note, width))}{/gray-fg}`);
  return [headerLine(block, context), ...body];
}
