// Tool definitions in the exact shape each model API expects. Over MCP, a tool whose declared
// permissions write nothing and start nothing is read-only (`readOnlyHint`) unless its author says.
import { writesNothing, type ToolAnnotations, type ToolInfo } from '../core/index.js';

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
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      };
    case 'mcp': {
      const annotations = withReadOnlyFromPermissions(tool);
      return {
        name: tool.name,
        ...(tool.annotations?.title === undefined ? {} : { title: tool.annotations.title }),
        description: tool.description,
        inputSchema: tool.parameters,
        ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
        ...(annotations === undefined ? {} : { annotations: mcpAnnotations(annotations) }),
      };
    }
  }
}

/** The tool's annotations, `readOnly` set from its permissions when the author set none. */
function withReadOnlyFromPermissions(tool: ToolInfo): ToolAnnotations | undefined {
  if (tool.annotations?.readOnly !== undefined || !writesNothing(tool.permissions)) return tool.annotations;
  return { ...tool.annotations, readOnly: true };
}

/**
 * MCP's `annotations`. The title goes both at the top (2025-06-18 on) and here, where clients of
 * 2025-03-26 look for it.
 */
function mcpAnnotations(annotations: ToolAnnotations): Record<string, unknown> {
  const hints: [string, unknown][] = [
    ['title', annotations.title],
    ['readOnlyHint', annotations.readOnly],
    ['destructiveHint', annotations.destructive],
    ['idempotentHint', annotations.idempotent],
    ['openWorldHint', annotations.openWorld],
  ];
  return Object.fromEntries(hints.filter(([, value]) => value !== undefined));
}
