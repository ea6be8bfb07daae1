// A tool block as plain text lines: a header (status, tool, title, duration) and a body — the
// tool's `render` output, or the default block (the model-facing text) with one line saying why.
import type { CallStatus, RenderResult } from '../core/index.js';
import { sanitizeLine, sanitizeLines } from './terminal-text.js';

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

/** Lines a block's body shows when collapsed (the dashboard's Ctrl-O, replay's --expand show all). */
export const COLLAPSED_BODY_LINES = 8;

export interface BlockInput {
  status: CallStatus;
  tool: string;
  title?: string;
  durationMs: number;
  content: string;
}

export function blockHeader(block: BlockInput): string {
  const title = block.title ? `  ${sanitizeLine(block.title)}` : '';
  const status = block.status === 'ok' ? '' : `  ${block.status}`;
  return `${STATUS_MARKS[block.status]} ${block.tool}${title}${status}  (${(block.durationMs / 1000).toFixed(1)} s)`;
}

export function blockBody(block: BlockInput, rendered: RenderResult, expand: boolean): string[] {
  if (rendered.ok) return rendered.lines.map((line) => sanitizeLine(line));
  const lines = sanitizeLines(block.content);
  const shown = expand || lines.length <= COLLAPSED_BODY_LINES ? lines : [...lines.slice(0, COLLAPSED_BODY_LINES), `… ${lines.length - COLLAPSED_BODY_LINES} more lines`];
  return rendered.reason === null ? shown : [...shown, `(${sanitizeLine(rendered.reason)}; showing the recorded text)`];
}
