// The MCP transport on stdio: one JSON-RPC message per line, each parsed once and handed on as
// parsed; a line that is not JSON is answered here, and a line longer than the limit is answered
// and skipped without being held in memory. Messages out are written in order, those sent in one
// turn of the event loop together (in writes of at most MAX_WRITE_CHARS, a longer line on its
// own), waiting on a full pipe. An answer that cannot be serialised is replaced by an error answer,
// so no message can stop the ones after it from going out.
//
// While more than MAX_UNWRITTEN_OUTPUT_CHARS wait for a client that does not read, requests are
// read but not parsed: each would add an answer (a 2-byte line that is not JSON earns an 80-byte
// error), so a client that writes without reading cannot grow the server without bound. Reading
// goes on, up to MAX_HELD_INPUT_BYTES held, so that a client closing stdin is still seen (a paused
// stream never reports its end). An output that fails (EPIPE: the client closed its end) closes
// the connection: nothing more is held for a reader that is gone.
import type { Readable, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorAnswer, INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR } from './json-rpc.js';

/** Longest message line accepted from a client: arguments of 4 M characters fit with escapes. */
export const MAX_REQUEST_LINE_BYTES = 32 * 1024 * 1024;
/** Characters of answers waiting for the pipe past which requests are no longer parsed. */
export const MAX_UNWRITTEN_OUTPUT_CHARS = 8 * 1024 * 1024;
/** Bytes of requests read and held unparsed while output waits; past this, stdin is paused. */
export const MAX_HELD_INPUT_BYTES = 4 * 1024 * 1024;
/** Most characters given to one write: lines are joined up to this, a longer line goes alone. */
export const MAX_WRITE_CHARS = 1024 * 1024;

/** The message's line, or an error answer's when it cannot be serialised (a string past V8's longest). */
function lineOf(message: JSONRPCMessage): string | undefined {
  try {
    return JSON.stringify(message);
  } catch (error) {
    if (!('id' in message) || !('result' in message || 'error' in message)) return undefined;
    return JSON.stringify(
      errorAnswer(
        message.id ?? null,
        INTERNAL_ERROR,
        `Internal error: the answer could not be sent (${(error as Error).message})`,
      ),
    );
  }
}

export class LineTransport {
  private chunks: Buffer[] = [];
  private held = 0;
  private skipping = false;
  /** Lines to write together once this turn of the event loop is over. */
  private outgoing: string[] = [];
  private outgoingChars = 0;
  /** Set while too much output waits (see MAX_UNWRITTEN_OUTPUT_CHARS): input is held, not parsed. */
  private holdingInput = false;
  private heldInput: Buffer[] = [];
  private heldInputBytes = 0;
  private inputPaused = false;
  /** Told once the waiting output falls back under the limit, or that the connection closed. */
  private roomWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
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
   * (`close()`, stdin's end, or the output failing).
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

  /**
   * Resolves when the message's line has been written (or, the pipe being full, has drained).
   * Once the connection is closed, nothing more is sent: what was sent before still goes out.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.outputGone || this.closed) return Promise.resolve();
    const line = lineOf(message);
    if (line === undefined) return Promise.resolve();
    this.outgoing.push(line);
    this.outgoingChars += line.length;
    if (this.outgoingChars > MAX_UNWRITTEN_OUTPUT_CHARS) this.holdingInput = true;
    this.nextWrite ??= this.drained
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(() => this.writeOutgoing());
    return this.nextWrite;
  }

  /** Resolves once no more than MAX_UNWRITTEN_OUTPUT_CHARS wait to be written; rejects once the connection is closed. */
  whenRoom(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the connection is closed'));
    if (!this.holdingInput) return Promise.resolve();
    return new Promise((resolve, reject) => this.roomWaiters.push({ resolve, reject }));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('error', this.onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.chunks = [];
    this.heldInput = [];
    this.heldInputBytes = 0;
    for (const waiter of this.roomWaiters.splice(0)) waiter.reject(new Error('the connection is closed'));
    this.onclose();
  }

  private writeOutgoing(): Promise<void> {
    const lines = this.outgoing;
    this.outgoing = [];
    this.outgoingChars = 0;
    this.nextWrite = undefined;
    if (this.outputGone) return Promise.resolve();
    let room = true;
    let batch: string[] = [];
    let batchChars = 0;
    const writeBatch = (): void => {
      if (batch.length > 0) room = this.output.write(`${batch.join('\n')}\n`);
      batch = [];
      batchChars = 0;
    };
    for (const line of lines) {
      if (line.length + 1 > MAX_WRITE_CHARS) {
        writeBatch();
        room = this.output.write(`${line}\n`);
        continue;
      }
      if (batchChars + line.length + 1 > MAX_WRITE_CHARS) writeBatch();
      batch.push(line);
      batchChars += line.length + 1;
    }
    writeBatch();
    this.drained = room
      ? Promise.resolve()
      : new Promise((resolve) => {
          this.stopWaitingForDrain = resolve;
          this.output.once('drain', resolve);
        });
    return this.drained.then(() => this.readAgainIfRoom());
  }

  private readAgainIfRoom(): void {
    if (!this.holdingInput || this.closed || this.outgoingChars > MAX_UNWRITTEN_OUTPUT_CHARS) return;
    this.holdingInput = false;
    for (const waiter of this.roomWaiters.splice(0)) waiter.resolve();
    const held = this.heldInput;
    this.heldInput = [];
    this.heldInputBytes = 0;
    for (let index = 0; index < held.length; index++) {
      if (this.closed) return;
      this.takeChunk(held[index]!);
      if (this.holdingInput) {
        const rest = held.slice(index + 1);
        this.heldInput.push(...rest);
        this.heldInputBytes += rest.reduce((sum, kept) => sum + kept.length, 0);
        return;
      }
    }
    if (this.inputPaused && !this.closed) {
      this.inputPaused = false;
      this.input.resume();
    }
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
    if (!this.holdingInput) return this.takeChunk(chunk);
    this.heldInput.push(chunk);
    this.heldInputBytes += chunk.length;
    if (this.heldInputBytes > MAX_HELD_INPUT_BYTES && !this.inputPaused) {
      this.inputPaused = true;
      this.input.pause();
    }
  };

  private takeChunk(chunk: Buffer): void {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (!this.skipping)
        this.take(
          this.chunks.length === 0
            ? chunk.subarray(start, end)
            : Buffer.concat([...this.chunks, chunk.subarray(start, end)]),
        );
      this.chunks = [];
      this.held = 0;
      this.skipping = false;
      start = end + 1;
      // A message answered at once may fill the output: the rest of the chunk waits, unparsed.
      if (this.holdingInput && start < chunk.length) {
        this.heldInput.push(chunk.subarray(start));
        this.heldInputBytes += chunk.length - start;
        return;
      }
    }
    if (this.skipping || start === chunk.length) return;
    this.held += chunk.length - start;
    if (this.held > MAX_REQUEST_LINE_BYTES) {
      void this.send(
        errorAnswer(null, INVALID_REQUEST, `Invalid Request: a message is longer than ${MAX_REQUEST_LINE_BYTES} bytes`),
      );
      this.chunks = [];
      this.held = 0;
      this.skipping = true;
    } else this.chunks.push(chunk.subarray(start));
  }

  /** The client closed stdin: the connection closes, whatever waits to be read or written. */
  private readonly onEnd = (): void => {
    if (!this.holdingInput && !this.skipping && this.held > 0) this.take(Buffer.concat(this.chunks));
    this.chunks = [];
    this.close();
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
