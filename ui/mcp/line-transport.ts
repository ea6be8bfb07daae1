// The MCP transport on stdio: one JSON-RPC message per line, each parsed once. A parsed message is
// offered to the call lane first (call-lane.ts: plain tool calls), then checked (json-rpc-check.ts)
// and handed to the SDK's protocol as the message already parsed; what the SDK would drop without a
// word is answered here instead. A line longer than the limit is answered and skipped without being
// held in memory. Messages out are written in order, those of one turn of the event loop in one
// write, waiting on a full pipe.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkMessage, errorAnswer, INVALID_REQUEST, parseLine } from './json-rpc-check.js';

/** Longest message line accepted from a client: arguments of 4 M characters fit with escapes. */
export const MAX_REQUEST_LINE_BYTES = 32 * 1024 * 1024;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  /** Takes the messages it serves itself before the SDK sees them. */
  lane?: { take(message: unknown): boolean; close(): void };

  private chunks: Buffer[] = [];
  /** Lines to write together once this turn of the event loop is over. */
  private outgoing: string[] = [];
  /** The write the lines in `outgoing` go out with. */
  private nextWrite: Promise<void> | undefined;
  /** Resolves once the pipe has room for the next write. */
  private drained: Promise<void> = Promise.resolve();
  private held = 0;
  private skipping = false;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {}

  start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', this.onError);
    return Promise.resolve();
  }

  /** Resolves when the message's line has been written (or, the pipe being full, has drained). */
  send(message: JSONRPCMessage): Promise<void> {
    this.outgoing.push(JSON.stringify(message));
    this.nextWrite ??= this.drained.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(() => this.writeOutgoing());
    return this.nextWrite;
  }

  private writeOutgoing(): Promise<void> {
    const text = `${this.outgoing.join('\n')}\n`;
    this.outgoing = [];
    this.nextWrite = undefined;
    this.drained = this.output.write(text) ? Promise.resolve() : new Promise((resolve) => this.output.once('drain', resolve));
    return this.drained;
  }

  close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.lane?.close();
    this.onclose?.();
    return Promise.resolve();
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
      this.answer(errorAnswer(null, INVALID_REQUEST, `Invalid Request: a message is longer than ${MAX_REQUEST_LINE_BYTES} bytes`));
      this.chunks = [];
      this.held = 0;
      this.skipping = true;
    } else this.chunks.push(chunk.subarray(start));
  };

  private readonly onEnd = (): void => {
    if (!this.skipping && this.held > 0) this.take(Buffer.concat(this.chunks));
    this.chunks = [];
  };

  private readonly onError = (error: Error): void => {
    this.onerror?.(error);
  };

  private take(line: Buffer): void {
    const parsed = parseLine(line.toString('utf8'));
    if (parsed.kind === 'message' && this.lane?.take(parsed.message)) return;
    const verdict = parsed.kind === 'message' ? checkMessage(parsed.message) : parsed;
    if (verdict.kind === 'forward') this.onmessage?.(verdict.message);
    else if (verdict.kind === 'answer') this.answer(verdict.error);
  }

  private answer(error: JSONRPCMessage): void {
    this.send(error).catch(() => undefined);
  }
}
