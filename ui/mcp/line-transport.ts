// The MCP transport on stdio: one JSON-RPC message per line, each parsed once. A line is checked
// (json-rpc-check.ts) and handed to the SDK's protocol as the message already parsed; what the SDK
// would drop without a word is answered here instead. A line longer than the limit is answered and
// skipped without being held in memory. Messages out are written in order, waiting on a full pipe.
import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { checkLine, errorAnswer, INVALID_REQUEST } from './json-rpc-check.js';

/** Longest message line accepted from a client: arguments of 4 M characters fit with escapes. */
export const MAX_REQUEST_LINE_BYTES = 32 * 1024 * 1024;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private chunks: Buffer[] = [];
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

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.output.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
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
    const verdict = checkLine(line.toString('utf8'));
    if (verdict.kind === 'forward') this.onmessage?.(verdict.message);
    else if (verdict.kind === 'answer') this.answer(verdict.error);
  }

  private answer(error: JSONRPCMessage): void {
    this.send(error).catch(() => undefined);
  }
}
