// The MCP transport on stdio: one JSON-RPC message per line, each parsed once and handed on as
// parsed; a line that is not JSON is answered here, and a line longer than the limit is answered
// and skipped without being held in memory. Messages out are written in order, those sent in one
// turn of the event loop in one write, waiting on a full pipe.
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorAnswer, INVALID_REQUEST, PARSE_ERROR } from './json-rpc.js';

/** Longest message line accepted from a client: arguments of 4 M characters fit with escapes. */
export const MAX_REQUEST_LINE_BYTES = 32 * 1024 * 1024;

export class LineTransport {
  private chunks: Buffer[] = [];
  private held = 0;
  private skipping = false;
  /** Lines to write together once this turn of the event loop is over. */
  private outgoing: string[] = [];
  /** The write the lines in `outgoing` go out with. */
  private nextWrite: Promise<void> | undefined;
  /** Resolves once the pipe has room for the next write. */
  private drained: Promise<void> = Promise.resolve();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly onmessage: (message: unknown) => void,
  ) {}

  start(): void {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onError);
  }

  /** Resolves when the message's line has been written (or, the pipe being full, has drained). */
  send(message: JSONRPCMessage): Promise<void> {
    this.outgoing.push(JSON.stringify(message));
    this.nextWrite ??= this.drained.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => this.writeOutgoing());
    return this.nextWrite;
  }

  close(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
  }

  private writeOutgoing(): Promise<void> {
    const text = `${this.outgoing.join('\n')}\n`;
    this.outgoing = [];
    this.nextWrite = undefined;
    this.drained = this.output.write(text) ? Promise.resolve() : new Promise((resolve) => this.output.once('drain', resolve));
    return this.drained;
  }

  private readonly onData = (chunk: Buffer): void => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (!this.skipping) this.take(this.chunks.length === 0 ? chunk.subarray(start, end) : Buffer.concat([...this.chunks, chunk.subarray(start, end)]));
      this.chunks = [];
      this.held = 0;
      this.skipping = false;
      start = end + 1;
    }
    if (this.skipping || start === chunk.length) return;
    this.held += chunk.length - start;
    if (this.held > MAX_REQUEST_LINE_BYTES) {
      void this.send(errorAnswer(null, INVALID_REQUEST, `Invalid Request: a message is longer than ${MAX_REQUEST_LINE_BYTES} bytes`));
      this.chunks = [];
      this.held = 0;
      this.skipping = true;
    } else this.chunks.push(chunk.subarray(start));
  };

  private readonly onEnd = (): void => {
    if (!this.skipping && this.held > 0) this.take(Buffer.concat(this.chunks));
    this.chunks = [];
  };

  /** A read error closes the input, which ends serving (mcp-server.ts); nothing to answer. */
  private readonly onError = (): void => undefined;

  private take(line: Buffer): void {
    const text = line.toString('utf8');
    if (/^\s*$/.test(text)) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      void this.send(errorAnswer(null, PARSE_ERROR, 'Parse error: the line is not JSON'));
      return;
    }
    this.onmessage(message);
  }
}
