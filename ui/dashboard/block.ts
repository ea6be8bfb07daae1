// One block of the transcript: a call (running or finished) or a note (a reload, /tools, a
// problem with a typed line). It keeps what its lines are drawn from: the latest snapshot and
// the render of it, the title, the model-facing text, the last KEPT_LOG_LINES lines the tool
// printed (and how many it printed), and the question it waits on.
import type { AskAnswer, AskQuestion, CallResult, RenderResult } from '../../core/index.js';
import type { BlockState } from '../block-view.js';

const KEPT_LOG_LINES = 50;

/** A question the call waits on (`ctx:ask`), and how to answer it. */
export interface PendingQuestion {
  question: AskQuestion;
  answer(answer: AskAnswer): void;
}

export class Block {
  title: string | undefined;
  status: BlockState;
  durationMs: number | undefined;
  content = '';
  snapshot: Uint8Array | undefined;
  readonly logs: string[] = [];
  /** Lines printed in all, `logs` and those dropped before them. */
  loggedLines = 0;
  /** The render of `snapshot` for `renderedFor`, when there is one. */
  rendered: RenderResult | undefined;
  renderedFor: { snapshot: Uint8Array; width: number; expand: boolean } | undefined;
  renderPending = false;
  /** While the call waits for a worker: its place in line. */
  queued: number | undefined;
  /** While the call waits for the user's answer: its question. */
  question: PendingQuestion | undefined;
  readonly controller = new AbortController();
  /** Settles when the call has ended (at once for a note or a replayed block). */
  settled: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: number,
    readonly kind: 'call' | 'note',
    readonly tool: string,
    readonly startedAt: number,
  ) {
    this.status = kind === 'call' ? 'running' : 'ok';
  }

  static note(id: number, label: string, text: string, status: BlockState, now: number): Block {
    const block = new Block(id, 'note', label, now);
    block.content = text;
    block.status = status;
    return block;
  }

  get running(): boolean {
    return this.status === 'running';
  }

  log(text: string): void {
    const lines = text.split('\n');
    this.loggedLines += lines.length;
    this.logs.push(...lines);
    if (this.logs.length > KEPT_LOG_LINES) this.logs.splice(0, this.logs.length - KEPT_LOG_LINES);
  }

  finish(result: Pick<CallResult, 'status' | 'content' | 'durationMs' | 'title' | 'snapshot'>): void {
    this.status = result.status;
    this.content = result.content;
    this.durationMs = result.durationMs;
    if (result.title !== undefined) this.title = result.title;
    if (result.snapshot !== undefined) this.snapshot = result.snapshot;
  }

  /** True when the snapshot (or the space to draw it in) changed since it was last rendered. */
  needsRender(width: number, expand: boolean): boolean {
    if (!this.snapshot || this.kind === 'note') return false;
    const last = this.renderedFor;
    return !last || last.snapshot !== this.snapshot || last.width !== width || last.expand !== expand;
  }
}
