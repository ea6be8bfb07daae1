// A terminal without a terminal: streams that look like a TTY to blessed, for tests and the bench.
// Keys are written to `input`; what the dashboard draws goes to `output` and is dropped (watch
// frames with the dashboard's `onPaint`).
import { PassThrough } from 'node:stream';

export class VirtualTerminal {
  readonly input: PassThrough & { isTTY: boolean; setRawMode: (raw: boolean) => void };
  readonly output: PassThrough & { isTTY: boolean; columns: number; rows: number };

  constructor(columns: number, rows: number) {
    this.input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    this.output = Object.assign(new PassThrough(), { isTTY: true, columns, rows });
    this.output.resume();
  }

  /** Types text (or escape sequences: '\x1b' is Esc, '\x0f' is Ctrl-O, '\r' is Enter). */
  type(text: string): void {
    this.input.write(text);
  }

  resize(columns: number, rows: number): void {
    this.output.columns = columns;
    this.output.rows = rows;
    this.output.emit('resize');
  }
}
