// The first line of a moonpool tool's row in pi: the tool's name, then what it may touch (its
// declared permissions, or full access), dimmed and cut to the row's width by display columns.
import { describePermissions, type ToolPermissions } from '../core/index.js';
import { sanitizeLine } from '../ui/terminal-text.js';
import { columns, fitColumns } from '../ui/text-width.js';
import type { PiComponent, PiTheme } from './pi-api.js';

/** Columns between the name and the permissions. */
const GAP = 2;

export class ToolHeader implements PiComponent {
  private readonly access: string;

  constructor(
    private readonly name: string,
    permissions: ToolPermissions | null,
    private readonly theme: PiTheme,
  ) {
    this.access = sanitizeLine(describePermissions(permissions));
  }

  render(width: number): string[] {
    const name = fitColumns(this.name, width);
    const room = width - columns(name) - GAP;
    const title = this.theme.fg('toolTitle', this.theme.bold(name));
    return [room > 0 ? `${title}${' '.repeat(GAP)}${this.theme.fg('dim', fitColumns(this.access, room))}` : title];
  }

  invalidate(): void {}
}
