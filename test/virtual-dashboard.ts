// A dashboard on a virtual terminal, as tests drive it: keys typed into the terminal, and what the
// dashboard painted last (its lines and its input line).
import type { ToolHost } from '../core/index.js';
import { Dashboard } from '../ui/dashboard/dashboard.js';
import { VirtualTerminal } from '../ui/dashboard/virtual-terminal.js';

export interface VirtualDashboard {
  dashboard: Dashboard;
  terminal: VirtualTerminal;
  /** The last frame's lines. */
  lines: () => string[];
  /** The last frame's lines as one text, for assertions and their messages. */
  screen: () => string;
  /** The last frame's input line. */
  input: () => string;
}

export function virtualDashboard(host: ToolHost, columns: number, rows: number): VirtualDashboard {
  const terminal = new VirtualTerminal(columns, rows);
  let lines: string[] = [];
  let input = '';
  const dashboard = new Dashboard({
    host,
    input: terminal.input,
    output: terminal.output,
    onPaint: (frame) => {
      lines = frame.lines;
      input = frame.input;
    },
  });
  return { dashboard, terminal, lines: () => lines, screen: () => lines.join('\n'), input: () => input };
}
