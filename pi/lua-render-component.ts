// A moonpool tool row's body in pi: the tool's Lua `render` of the latest state at the width pi
// gives, or the recorded text. pi draws synchronously while renders run in moonpool's inspect pool,
// so the component shows what it has and asks pi to redraw when the render for its width arrives
// (one render in flight, the latest state next). Every line is cut to the width by display columns.
import type { RenderResult, RenderView } from '../core/index.js';
import { blockBody, BODY_INDENT, renderView, type BlockState } from '../ui/block-view.js';
import { sanitizeLine } from '../ui/terminal-text.js';
import { fitColumns } from '../ui/text-width.js';
import type { PiComponent, PiTheme } from './pi-api.js';
import { decodeSnapshot } from './tool-details.js';

/** Renders a state (msgpack bytes) with the tool's Lua `render`; never rejects. */
export type RenderLua = (snapshot: Uint8Array, view: RenderView) => Promise<RenderResult>;

/** What a row shows, as pi last handed it to renderResult. */
export interface RowFacts {
  tool: string;
  status: BlockState;
  title?: string | undefined;
  /** The model-facing text (or what pi recorded for the call). */
  content: string;
  /** The latest state, base64 msgpack, when the tool showed one. */
  snapshot?: string | undefined;
  /** While running: the last lines the tool printed. */
  recentLogs: readonly string[];
  expanded: boolean;
}

interface Rendered {
  snapshot: string;
  width: number;
  expand: boolean;
  result: RenderResult;
}

const EXPAND_HINT = 'Ctrl-O expands';

export class LuaRenderComponent implements PiComponent {
  private facts: RowFacts | undefined;
  private theme: PiTheme | undefined;
  private requestRedraw: () => void = () => undefined;
  /** The latest render that arrived, shown (cut to the width) until the next one replaces it. */
  private rendered: Rendered | undefined;
  private rendering = false;
  private decoded: { text: string; bytes: Uint8Array } | undefined;
  /** The lines last drawn, reused while nothing they depend on changed (pi draws every frame). */
  private drawn: { facts: RowFacts; rendered: Rendered | undefined; width: number; lines: string[] } | undefined;

  constructor(private readonly renderLua: RenderLua) {}

  /** The row's latest facts; pi calls renderResult (and so this) on every update of the row. */
  show(facts: RowFacts, theme: PiTheme, requestRedraw: () => void): void {
    this.facts = facts;
    this.theme = theme;
    this.requestRedraw = requestRedraw;
  }

  render(width: number): string[] {
    const facts = this.facts;
    const theme = this.theme;
    if (!facts || !theme) return [];
    const columns = Math.max(1, width);
    if (facts.snapshot !== undefined) this.renderFor(facts.snapshot, columns, facts.expanded);
    const drawn = this.drawn;
    if (drawn && drawn.facts === facts && drawn.rendered === this.rendered && drawn.width === columns)
      return drawn.lines;
    const body = blockBody(
      {
        kind: 'call',
        state: facts.status,
        tool: facts.tool,
        title: facts.title,
        elapsedMs: 0,
        content: facts.content,
        recentLogs: facts.recentLogs,
        rendered: facts.snapshot === undefined ? undefined : this.rendered?.result,
      },
      { width: blockWidth(columns), expand: facts.expanded, expandHint: EXPAND_HINT },
    );
    const fit = (line: string): string => fitColumns(line, columns);
    const lines = [
      ...this.headerRows(facts, theme, fit),
      ...body.rows.map((row) => theme.fg('toolOutput', fit(row))),
      ...body.noteRows.map((row) => theme.fg('dim', fit(row))),
    ];
    this.drawn = { facts, rendered: this.rendered, width: columns, lines };
    return lines;
  }

  /** Drops the drawn lines (they hold the theme's colours); the renders, which do not, are kept. */
  invalidate(): void {
    this.drawn = undefined;
  }

  /** The title, and how the call ended when it failed (pi's row shows the tool's name above). */
  private headerRows(facts: RowFacts, theme: PiTheme, fit: (line: string) => string): string[] {
    const failed = facts.status !== 'running' && facts.status !== 'ok';
    const parts = [facts.title === undefined ? '' : sanitizeLine(facts.title), failed ? facts.status : ''].filter(
      Boolean,
    );
    if (parts.length === 0) return [];
    return [theme.fg(failed ? 'error' : 'muted', fit(parts.join('  ')))];
  }

  private renderFor(snapshot: string, width: number, expand: boolean): void {
    const last = this.rendered;
    if (this.rendering || (last && last.snapshot === snapshot && last.width === width && last.expand === expand))
      return;
    this.rendering = true;
    const settle = (result: RenderResult): void => {
      this.rendered = { snapshot, width, expand, result };
      this.rendering = false;
      this.requestRedraw();
    };
    this.renderLua(this.bytes(snapshot), renderView({ width: blockWidth(width), expand })).then(
      settle,
      (error: unknown) => settle({ ok: false, reason: `render could not run: ${(error as Error).message}` }),
    );
  }

  private bytes(snapshot: string): Uint8Array {
    if (this.decoded?.text !== snapshot) this.decoded = { text: snapshot, bytes: decodeSnapshot(snapshot) };
    return this.decoded.bytes;
  }
}

/** pi pads its row itself: the body takes all of pi's width, as a block's body takes its width less the indent. */
function blockWidth(rowWidth: number): number {
  return rowWidth + BODY_INDENT.length;
}
