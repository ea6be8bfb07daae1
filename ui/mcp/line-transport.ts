// The MCP transport on stdio: one JSON-RPC message per line, each parsed once and handed on as
// parsed; a line that is not JSON is answered here, and a line longer than the limit is answered
// and skipped without being held in memory. Messages out are written in order, those sent in one
// turn of the event loop in one write, waiting on a full pipe. While more than
// MAX_UNWRITTEN_OUTPUT_CHARS wait for a client that does not read, no more requests are read: each
// would add an answer (a 2-byte line that is not JSON earns an 80-byte error), so a client that
// writes without reading cannot grow the server without bound. An output that fails (EPIPE: the
// client closed its end) closes the connection: nothing more is held for a reader that is gone.
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorAnswer, INVALID_REQUEST, PARSE_ERROR } from './json-rpc.js';

/** Longest message line accepted from a client: arguments of 4 M characters fit with escapes. */
export const MAX_REQUEST_LINE_BYTES = 32 * 1024 * 1024;
/** Characters of answers waiting for the pipe past which requests are no longer read. */
export const MAX_UNWRITTEN_OUTPUT_CHARS = 8 * 1024 * 1024;

export class LineTransport {
  private chunks: Buffer[] = [];
  private held = 0;
  private skipping = false;
  /** Lines to write together once this turn of the event loop is over. */
  private outgoing: string[] = [];
  private outgoingChars = 0;
  /** Reading stopped while too much output waits (see MAX_UNWRITTEN_OUTPUT_CHARS). */
  private readingStopped = false;
  /** The write the lines in `outgoing` go out with. */
  private nextWrite: Promise<void> | undefined;
  /** Resolves once the pipe has room for the next write. */
  private drained: Promise<void> = Promise.resolve();
  /** Ends the wait for 'drain' when the output fails, as it never drains then. */
  private stopWaitingForDrain: (() => void) | undefined;
  private outputGone = false;
  private closed = false;

  /**
   * `onmessage` takes each message as parsed; `onclose` is told once, when the connection closes
   * (`close()`, or the output failing).
   */
  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly onmessage: (message: unknown) => void,
    private readonly onclose: () => void = () => undefined,
  ) {}

  start(): void {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onError);
    this.output.on('error', this.onOutputGone);
    this.output.on('close', this.onOutputGone);
  }

  /** Resolves when the message's line has been written (or, the pipe being full, has drained). */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.outputGone) return Promise.resolve();
    const line = JSON.stringify(message);
    this.outgoing.push(line);
    this.outgoingChars += line.length;
    if (this.outgoingChars > MAX_UNWRITTEN_OUTPUT_CHARS && !this.readingStopped) {
      this.readingStopped = true;
      this.input.pause();
    }
    this.nextWrite ??= this.drained.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => this.writeOutgoing());
    return this.nextWrite;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.onclose();
  }

  private writeOutgoing(): Promise<void> {
    const text = `${this.outgoing.join('\n')}\n`;
    this.outgoing = [];
    this.outgoingChars = 0;
    this.nextWrite = undefined;
    if (this.outputGone) return Promise.resolve();
    this.drained = this.output.write(text)
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.stopWaitingForDrain = resolve;
          this.output.once('drain', resolve);
        });
    return this.drained.then(() => this.readAgainIfRoom());
  }

  private readAgainIfRoom(): void {
    if (!this.readingStopped || this.closed || this.outgoingChars > MAX_UNWRITTEN_OUTPUT_CHARS) return;
    this.readingStopped = false;
    this.input.resume();
  }

  private readonly onOutputGone = (): void => {
    if (this.outputGone) return;
    this.outputGone = true;
    this.outgoing = [];
    this.outgoingChars = 0;
    this.stopWaitingForDrain?.();
    this.close();
  };

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
