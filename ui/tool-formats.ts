// Tool definitions in the exact shape each model API expects.
import type { ToolInfo } from '../core/index.js';

export const TOOL_FORMATS = ['anthropic', 'openai', 'mcp'] as const;
export type ToolFormat = (typeof TOOL_FORMATS)[number];

export function isToolFormat(value: string): value is ToolFormat {
  return (TOOL_FORMATS as readonly string[]).includes(value);
}

/** Anthropic Messages API `tools[]`, OpenAI Chat Completions `tools[]`, or MCP `tools/list` entries. */
export function formatTool(tool: ToolInfo, format: ToolFormat): Record<string, unknown> {
  switch (format) {
    case 'anthropic':
      return { name: tool.name, description: tool.description, input_schema: tool.parameters };
    case 'openai':
      return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
    case 'mcp':
      return { name: tool.name, description: tool.description, inputSchema: tool.parameters };
  }
}
