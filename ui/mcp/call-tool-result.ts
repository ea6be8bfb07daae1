// A moonpool CallResult as MCP's CallToolResult: the text for every client, `structuredContent`
// when the tool returned a `structured` table, and a `resource_link` to the spill file when the
// output was too long to send whole (resources/read serves it; see spill-resources.ts). A
// `structured` table with a top-level `__proto__` field is an error result: MCP's schema (the SDK's
// own check of the answer, and a client's) takes that key for the prototype and drops it.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallResult } from '../../core/index.js';

export function spillFileUri(path: string): string {
  return pathToFileURL(path).href;
}

export function callToolResult(result: CallResult): CallToolResult {
  if (result.structured !== undefined && Object.hasOwn(result.structured, '__proto__')) {
    const text = `${result.tool}: run's structured result is not valid:\nstructured: "__proto__" cannot be a field name (MCP clients drop it)`;
    return { content: [{ type: 'text', text }], isError: true };
  }
  const content: CallToolResult['content'] = [{ type: 'text', text: result.content }];
  if (result.spillPath !== undefined) {
    content.push({
      type: 'resource_link',
      uri: spillFileUri(result.spillPath),
      name: basename(result.spillPath),
      description: `The full output of ${result.tool} (call ${result.callId}); the text above is its head.`,
      mimeType: 'text/plain',
    });
  }
  return {
    content,
    ...(result.structured === undefined ? {} : { structuredContent: result.structured }),
    isError: result.isError,
  };
}
