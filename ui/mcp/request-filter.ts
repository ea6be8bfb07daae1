// Splits the client's stream into lines, answers the ones the SDK would drop (see
// json-rpc-check.ts) and passes the rest on. A line longer than the limit is answered and skipped
// without being held in memory.
import { PassThrough, type Readable } from 'node:stream';
import type { JSONRPCError } from '@modelcontextprotocol/sdk/types.js';
import { checkLine, errorAnswer, INVALID_REQUEST } from './json-rpc-check.js';

/** Longest message line accepted from a client: arguments of 4 M characters fit with escapes. */
export const MAX_REQUEST_LINE_BYTES = 32 * 1024 * 1024;

export function filterRequests(input: Readable, answer: (error: JSONRPCError) => void): Readable {
  const output = new PassThrough();
  let chunks: Buffer[] = [];
  let held = 0;
  let skipping = false;

  const take = (line: Buffer): void => {
    const verdict = checkLine(line.toString('utf8'));
    if (verdict.kind === 'forward') output.write(Buffer.concat([line, Buffer.from('\n')]));
    else if (verdict.kind === 'answer') answer(verdict.error);
  };
  const refuseLong = (): void => answer(errorAnswer(null, INVALID_REQUEST, `Invalid Request: a message is longer than ${MAX_REQUEST_LINE_BYTES} bytes`));

  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (!skipping) take(Buffer.concat([...chunks, chunk.subarray(start, end)]));
      chunks = [];
      held = 0;
      skipping = false;
      start = end + 1;
    }
    if (skipping || start === chunk.length) return;
    held += chunk.length - start;
    if (held > MAX_REQUEST_LINE_BYTES) {
      refuseLong();
      chunks = [];
      held = 0;
      skipping = true;
    } else chunks.push(chunk.subarray(start));
  });
  input.on('end', () => {
    if (!skipping && held > 0) take(Buffer.concat(chunks));
    output.end();
  });
  return output;
}
