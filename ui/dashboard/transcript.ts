// The transcript: its blocks in order, drawn into lines for the current width, and the renders
// it asks the host for — one per dirty visible block per frame, from that block's latest snapshot.
import type { ToolHost } from '../../core/index.js';
import { renderView } from '../block-view.js';
import type { Block } from './block.js';
import { blockLines, type DrawContext } from './block-lines.js';

/** Blocks kept; older ones leave the transcript (they stay in the session log). */
export const MAX_BLOCKS = 500;

export class Transcript {
  readonly blocks: Block[] = [];
  private nextId = 1;

  constructor(
    private readonly host: ToolHost,
    private readonly onRendered: () => void,
  ) {}

  add(make: (id: number) => Block): Block {
    const block = make(this.nextId++);
    this.blocks.push(block);
    if (this.blocks.length > MAX_BLOCKS) this.blocks.splice(0, this.blocks.length - MAX_BLOCKS);
    return block;
  }

  /** Puts the blocks `made` in the place of `old` (first, if it has left the transcript). */
  replace(old: Block, made: ((id: number) => Block)[]): void {
    const at = this.blocks.indexOf(old);
    this.blocks.splice(Math.max(at, 0), at === -1 ? 0 : 1, ...made.map((make) => make(this.nextId++)));
    if (this.blocks.length > MAX_BLOCKS) this.blocks.splice(0, this.blocks.length - MAX_BLOCKS);
  }

  clear(): void {
    this.blocks.splice(0, this.blocks.length, ...this.blocks.filter((block) => block.running));
  }

  /** The calls running; a note shown running (a session being read) is none. */
  running(): Block[] {
    return this.blocks.filter((block) => block.kind === 'call' && block.running);
  }

  /** All lines, and where each block starts, for `context`. */
  draw(context: DrawContext): { lines: string[]; starts: number[] } {
    const lines: string[] = [];
    const starts: number[] = [];
    for (const block of this.blocks) {
      starts.push(lines.length);
      lines.push(...blockLines(block, context));
    }
    return { lines, starts };
  }

  /** Asks for renders of the dirty blocks whose lines fall in [top, bottom). */
  requestRenders(starts: number[], top: number, bottom: number, width: number, expand: boolean): void {
    const view = renderView({ width, expand });
    this.blocks.forEach((block, i) => {
      const start = starts[i] ?? 0;
      const end = starts[i + 1] ?? Infinity;
      if (end <= top || start >= bottom || block.renderPending || !block.needsRender(width, expand)) return;
      const snapshot = block.snapshot!;
      block.renderPending = true;
      void this.host.render(block.tool, snapshot, view).then((rendered) => {
        block.rendered = rendered;
        block.renderedFor = { snapshot, width, expand };
        block.renderPending = false;
        this.onRendered();
      });
    });
  }
}
