// The one block model every view draws from (the dashboard, `replay`, `moonpool call`'s live
// block): a header's parts (status mark or spinner, tool, title, status, elapsed time) and a body —
// the tool's render, or the text with a note saying why; under a render, the model-facing text of
// a call that did not end ok, or of any finished call when expanded; an expanded call's log under
// all of it — sanitized, wrapped by display width and, unless expanded, at most
// COLLAPSED_BODY_LINES rows, the note included. Views only style and place what it gives; the
// plain-text views take their lines whole from `plainBlockLines`.
import type { CallStatus, RenderResult, RenderView } from '../core/index.js';
import { sanitizeLine, sanitizeLines } from './terminal-text.js';
import { columns, fitColumns, wrapColumns } from './text-width.js';

/** A call's state, or a note's: `warning` is a note on something that works, with problems (a config with errors). */
export type BlockState = 'running' | 'warning' | CallStatus;

export const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How long the spinner shows each frame: it turns with the call's elapsed time, in every view alike. */
export const SPINNER_FRAME_MS = 100;

export const STATUS_MARKS: Record<Exclude<BlockState, 'running'>, string> = {
  ok: '✓',
  warning: '⚠',
  error: '✗',
  timeout: '⏱',
  cancelled: '⊘',
  crashed: '✗',
  invalid_args: '✗',
  unavailable: '✗',
  unknown_tool: '✗',
  busy: '…',
};

/** Rows a collapsed body shows, a note included (when cut, the last content row says how many more there are). */
export const COLLAPSED_BODY_LINES = 8;
/** Rows a collapsed body gives at most to the note saying why the render is not shown. */
const COLLAPSED_NOTE_LINES = 2;
/** Rows a tool's `render` is offered when its block is expanded. */
export const EXPANDED_RENDER_LINES = 1000;
/** What a body's rows are indented by, under the header. */
export const BODY_INDENT = '  ';
/** Lines a collapsed running call without a render shows of what it printed last. */
const RECENT_LOG_LINES = 3;

export interface BlockFacts {
  /** A note (/tools, /help, a reload's outcome) is never collapsed and has no elapsed time. */
  kind: 'call' | 'note';
  state: BlockState;
  tool: string;
  title?: string | undefined;
  elapsedMs: number;
  /** The model-facing text (a finished call), or a note's text. */
  content: string;
  /**
   * The last lines the call printed, as many as the view keeps: a running call without a render
   * shows them (the last RECENT_LOG_LINES unless expanded), an expanded block under its text.
   * None: the view keeps no log (replay).
   */
  recentLogs?: readonly string[];
  /** How many lines the call printed in all, when more than `recentLogs` holds. */
  loggedLines?: number;
  /** The tool's render of the block's latest snapshot, when one was asked for. */
  rendered?: RenderResult | undefined;
  /** While a running call waits for a worker: its place in line (1: next). */
  queued?: number | undefined;
}

export interface BlockHeader {
  /** The status mark, or the spinner's frame while the call runs. */
  mark: string;
  tool: string;
  /** The title (two spaces before it), cut to what the width leaves; '' without one. */
  title: string;
  /** The status word for a failed ending or a queued call ('' for ok, a note or a call that runs). */
  status: string;
  /** Elapsed time ('' for a note). */
  elapsed: string;
}

export interface BlockBody {
  rows: string[];
  /** Dim rows under them: why the tool's render is not shown (none when it is). */
  noteRows: string[];
}

export interface BlockLayout {
  /** Columns of the whole block; body rows take this less BODY_INDENT. */
  width: number;
  expand: boolean;
  /** How the collapsed marker says to see the rest, e.g. 'Ctrl-O shows all'. */
  expandHint?: string;
}

export function formatElapsed(ms: number): string {
  // A duration read back from a damaged log may be anything a number can be.
  if (!Number.isFinite(ms) || ms < 0) return '? s';
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/** The spinner's frame `elapsedMs` into a call. */
export function spinnerFrame(elapsedMs: number): string {
  return SPINNER_FRAMES[Math.floor(Math.max(0, elapsedMs) / SPINNER_FRAME_MS) % SPINNER_FRAMES.length]!;
}

/** The render view a block of `layout.width` columns offers a tool's `render`: its body's room. */
export function renderView(layout: Pick<BlockLayout, 'width' | 'expand'>): RenderView {
  return {
    width: bodyWidth(layout.width),
    height: layout.expand ? EXPANDED_RENDER_LINES : COLLAPSED_BODY_LINES,
    expand: layout.expand,
  };
}

function bodyWidth(blockWidth: number): number {
  return Math.max(1, blockWidth - BODY_INDENT.length);
}

/** The header's parts for a line of `width` columns (the title is what gets cut). */
export function blockHeader(facts: BlockFacts, width: number): BlockHeader {
  const mark = facts.state === 'running' ? spinnerFrame(facts.elapsedMs) : STATUS_MARKS[facts.state];
  const status =
    facts.state === 'ok' || facts.kind === 'note'
      ? ''
      : facts.state !== 'running'
        ? `  ${sanitizeLine(facts.state)}`
        : facts.queued === undefined
          ? ''
          : `  queued #${facts.queued}`;
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

/** What a body is made of: its main lines, a note on why the render is not shown, and a section under them. */
interface BodySource {
  lines: string[];
  note?: string;
  /** Rows under the main lines (the result text under a render), cut after them when collapsed. */
  below?: string[];
}

/** Heads the model-facing text where it is shown under a render. */
const RESULT_HEADING = '-- result --';

/** An expanded call's log: a heading (saying when older lines were dropped), then the lines kept. */
function logSection(facts: BlockFacts): string[] {
  const logs = facts.recentLogs ?? [];
  if (logs.length === 0) return [];
  const total = facts.loggedLines ?? logs.length;
  const heading =
    total > logs.length ? `-- log: the last ${logs.length} of ${total.toLocaleString('en-US')} lines --` : '-- log --';
  return [heading, ...logs.map((line) => sanitizeLine(line))];
}

/** The model-facing text under a finished call's render: when the call did not end ok, or the block is expanded. */
function resultBelowRender(facts: BlockFacts, expand: boolean): string[] {
  if (facts.state === 'running' || (facts.state === 'ok' && !expand)) return [];
  return [RESULT_HEADING, ...sanitizeLines(facts.content.replace(/\n$/, ''))];
}

function sourceLines(facts: BlockFacts, expand: boolean): BodySource {
  const { rendered } = facts;
  const log = expand ? logSection(facts) : [];
  if (rendered?.ok)
    return {
      lines: rendered.lines.map((line) => sanitizeLine(line)),
      below: [...resultBelowRender(facts, expand), ...log],
    };
  const note =
    rendered && !rendered.ok && rendered.reason
      ? `(${sanitizeLine(rendered.reason)}; showing the text instead)`
      : undefined;
  const withNote = (lines: string[], below: string[] = []): BodySource =>
    note ? { lines, note, below } : { lines, below };
  if (facts.state === 'running') {
    if (facts.recentLogs === undefined) return withNote([]);
    const recent = (expand ? facts.recentLogs : facts.recentLogs.slice(-RECENT_LOG_LINES)).map((line) =>
      sanitizeLine(line),
    );
    return withNote(recent.length > 0 ? recent : [facts.queued === undefined ? 'running…' : 'waiting for a worker…']);
  }
  return withNote(sanitizeLines(facts.content.replace(/\n$/, '')), log);
}

/** `rows` cut to `room`, the last one kept saying how many more there are. */
function collapse(rows: string[], room: number, hint: string | undefined): string[] {
  if (rows.length <= room) return rows;
  return [...rows.slice(0, room - 1), `… ${rows.length - room + 1} more lines${hint ? ` (${hint})` : ''}`];
}

/**
 * `main` then `below` in `room` rows: `below` gets what `main` leaves, and at least half the room
 * when it needs it (a long render never hides an error); each part cut says how many more it has.
 */
function collapseParts(main: string[], below: string[], room: number, hint: string | undefined): string[] {
  const belowRoom = Math.min(below.length, Math.max(room - main.length, Math.ceil(room / 2)));
  return [...collapse(main, room - belowRoom, hint), ...collapse(below, belowRoom, hint)];
}

/** The body's rows: wrapped by display width, and at most COLLAPSED_BODY_LINES unless expanded (or a note). */
export function blockBody(facts: BlockFacts, layout: BlockLayout): BlockBody {
  const width = bodyWidth(layout.width);
  const { lines, note, below = [] } = sourceLines(facts, layout.expand);
  const wrap = (source: string[]): string[] => source.flatMap((line) => wrapColumns(line, width));
  const rows = wrap(lines);
  const belowRows = wrap(below);
  const noteRows = note === undefined ? [] : wrapColumns(note, width);
  if (layout.expand || facts.kind === 'note') return { rows: [...rows, ...belowRows], noteRows };
  const shownNote =
    noteRows.length <= COLLAPSED_NOTE_LINES
      ? noteRows
      : [...noteRows.slice(0, COLLAPSED_NOTE_LINES - 1), fitColumns(`${noteRows[COLLAPSED_NOTE_LINES - 1]!}…`, width)];
  const room = COLLAPSED_BODY_LINES - shownNote.length;
  return { rows: collapseParts(rows, belowRows, room, layout.expandHint), noteRows: shownNote };
}

/** The block as plain lines (replay, the live block): the header fitted to the width, then the body indented. */
export function plainBlockLines(facts: BlockFacts, layout: BlockLayout): string[] {
  const body = blockBody(facts, layout);
  return [
    fitColumns(plainHeader(blockHeader(facts, layout.width)), layout.width),
    ...[...body.rows, ...body.noteRows].map((row) => `${BODY_INDENT}${row}`),
  ];
}
