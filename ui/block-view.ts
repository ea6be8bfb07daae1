// The one block model every view draws from (the dashboard, `replay`, `moonpool call`'s live
// block): a header's parts (status mark or spinner, tool, title, status, elapsed time) and a body —
// the tool's render, or the text with a note saying why — sanitized, wrapped by display width and
// collapsed to COLLAPSED_BODY_LINES unless expanded. Views only style and place what it gives.
import type { CallStatus, RenderResult, RenderView } from '../core/index.js';
import { sanitizeLine, sanitizeLines } from './terminal-text.js';
import { columns, fitColumns, wrapColumns } from './text-width.js';

export type BlockState = 'running' | CallStatus;

export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export const STATUS_MARKS: Record<CallStatus, string> = {
  ok: '✓',
  error: '✗',
  timeout: '⏱',
  cancelled: '⊘',
  crashed: '✗',
  invalid_args: '✗',
  unavailable: '✗',
  unknown_tool: '✗',
  busy: '…',
};

/** Rows a collapsed body shows (the last one says how many more there are). */
export const COLLAPSED_BODY_LINES = 8;
/** Rows a tool's `render` is offered when its block is expanded. */
export const EXPANDED_RENDER_LINES = 1000;
/** What a body's rows are indented by, under the header. */
export const BODY_INDENT = '  ';
/** Lines a running call without a render shows of what it printed last. */
const RECENT_LOG_LINES = 3;

export interface BlockFacts {
  kind: 'call' | 'note';
  state: BlockState;
  tool: string;
  title?: string | undefined;
  elapsedMs: number;
  /** The model-facing text (a finished call), or a note's text. */
  content: string;
  /** The last lines a running call printed (shown while it has no render); none: nothing shown. */
  recentLogs?: readonly string[];
  /** The tool's render of the block's latest snapshot, when one was asked for. */
  rendered?: RenderResult | undefined;
}

export interface BlockHeader {
  /** The status mark, or the spinner's frame while the call runs. */
  mark: string;
  tool: string;
  /** The title (two spaces before it), cut to what the width leaves; '' without one. */
  title: string;
  /** The status word for a failed ending ('' for ok, a note or a running call). */
  status: string;
  /** Elapsed time ('' for a note). */
  elapsed: string;
}

export interface BlockBody {
  rows: string[];
  /** Dim rows under them: why the tool's render is not shown (none when it is). */
  noteRows: string[];
}

export interface BodyLayout {
  /** Columns a body row may take (the indent not included). */
  width: number;
  expand: boolean;
  /** How the collapsed marker says to see the rest, e.g. 'Ctrl-O shows all'. */
  expandHint?: string;
}

export function formatElapsed(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** The render view a block body of `width` columns offers a tool's `render`. */
export function renderView(width: number, expand: boolean): RenderView {
  return { width, height: expand ? EXPANDED_RENDER_LINES : COLLAPSED_BODY_LINES, expand };
}

/** The header's parts for a line of `width` columns (the title is what gets cut). */
export function blockHeader(facts: BlockFacts, frame: number, width: number): BlockHeader {
  const mark = facts.state === 'running' ? SPINNER_FRAMES[frame % SPINNER_FRAMES.length]! : STATUS_MARKS[facts.state];
  const status = facts.state === 'running' || facts.state === 'ok' || facts.kind === 'note' ? '' : `  ${facts.state}`;
  const elapsed = facts.kind === 'call' ? formatElapsed(facts.elapsedMs) : '';
  // Five columns of separators and one spare: a row of the terminal's exact width wraps in some.
  const room = width - columns(mark) - columns(facts.tool) - columns(status) - columns(elapsed) - 6;
  const title = facts.title ? `  ${fitColumns(sanitizeLine(facts.title), Math.max(0, room))}` : '';
  return { mark, tool: sanitizeLine(facts.tool), title, status, elapsed };
}

/** The header as one plain line: `✓ tool  title  status  1.2 s`. */
export function plainHeader(header: BlockHeader): string {
  return `${header.mark} ${header.tool}${header.title}${header.status}${header.elapsed ? `  ${header.elapsed}` : ''}`;
}

function sourceLines(facts: BlockFacts): { lines: string[]; note?: string } {
  const { rendered } = facts;
  if (rendered?.ok) return { lines: rendered.lines.map((line) => sanitizeLine(line)) };
  const note = rendered && !rendered.ok && rendered.reason ? `(${sanitizeLine(rendered.reason)}; showing the text instead)` : undefined;
  const withNote = (lines: string[]): { lines: string[]; note?: string } => (note ? { lines, note } : { lines });
  if (facts.state === 'running') {
    if (facts.recentLogs === undefined) return withNote([]);
    const recent = facts.recentLogs.slice(-RECENT_LOG_LINES).map((line) => sanitizeLine(line));
    return withNote(recent.length > 0 ? recent : ['running…']);
  }
  return withNote(sanitizeLines(facts.content.replace(/\n$/, '')));
}

/** The body's rows: wrapped by display width, and collapsed unless `layout.expand`. */
export function blockBody(facts: BlockFacts, layout: BodyLayout): BlockBody {
  const { lines, note } = sourceLines(facts);
  const rows = lines.flatMap((line) => wrapColumns(line, layout.width));
  const shown =
    layout.expand || rows.length <= COLLAPSED_BODY_LINES
      ? rows
      : [
          ...rows.slice(0, COLLAPSED_BODY_LINES - 1),
          `… ${rows.length - COLLAPSED_BODY_LINES + 1} more lines${layout.expandHint ? ` (${layout.expandHint})` : ''}`,
        ];
  return { rows: shown, noteRows: note === undefined ? [] : wrapColumns(note, layout.width) };
}
