// One moonpool tool as a pi tool: the call runs in moonpool (isolated as always) with pi's signal,
// each state reaches pi through onUpdate while it runs, its questions go to pi's dialogs
// (pi-question.ts), and the result's text is exactly the text `moonpool call` gives the model. The
// row's first line names the tool and what it may touch; below, the row draws the tool's Lua
// `render` of the latest state.
import type { ToolHost, ToolInfo } from '../core/index.js';
import { LuaRenderComponent } from './lua-render-component.js';
import { askInPi } from './pi-question.js';
import type { PiTextContent, PiToolDefinition } from './pi-api.js';
import { withoutPatterns } from './pi-schema.js';
import { ToolHeader } from './tool-header.js';
import {
  encodeSnapshot,
  finishedDetails,
  keepRecentLogs,
  readDetails,
  runningDetails,
  type MoonpoolDetails,
} from './tool-details.js';

/** `modelArgs(toolCallId)`: the arguments as the model wrote them, when pi said (before converting them). */
export function piTool(
  host: ToolHost,
  tool: ToolInfo,
  modelArgs: (toolCallId: string) => unknown = () => undefined,
): PiToolDefinition<MoonpoolDetails> {
  return {
    name: tool.name,
    label: tool.name,
    description: tool.description,
    parameters: withoutPatterns(tool.parameters) as object,
    async execute(toolCallId, params, signal, onUpdate, context) {
      const args = modelArgs(toolCallId) ?? params;
      let title: string | undefined;
      let snapshot: string | undefined;
      let recentLogs: string[] = [];
      const update = (): void =>
        onUpdate?.({ content: text(title ?? ''), details: runningDetails(title, snapshot, recentLogs) });
      const result = await host.call(tool.name, args, {
        ...(signal === undefined ? {} : { signal }),
        onTitle: (next) => {
          title = next;
          update();
        },
        onSnapshot: (bytes) => {
          snapshot = encodeSnapshot(bytes);
          update();
        },
        onLog: (output) => {
          recentLogs = keepRecentLogs(recentLogs, output);
          update();
        },
        onAsk: (question, questionSignal) => askInPi(context, tool.name, question, questionSignal),
      });
      return { content: text(result.content), details: finishedDetails(result) };
    },
    renderCall(_args, theme) {
      return new ToolHeader(tool.name, tool.permissions, theme);
    },
    renderResult(result, { expanded }, theme, context) {
      const details = readDetails(result.details);
      const component =
        context.lastComponent instanceof LuaRenderComponent
          ? context.lastComponent
          : new LuaRenderComponent((bytes, view) => host.render(tool.name, bytes, view));
      component.show(
        {
          tool: tool.name,
          // Results pi made itself (arguments it refused) carry no moonpool details.
          status: details?.status ?? (context.isError ? 'error' : 'ok'),
          title: details?.title,
          content: textOf(result.content),
          snapshot: details?.snapshot,
          recentLogs: details?.recentLogs ?? [],
          expanded,
        },
        theme,
        () => context.invalidate(),
      );
      return component;
    },
  };
}

function text(value: string): PiTextContent[] {
  return [{ type: 'text', text: value }];
}

/** The text blocks of a result's content (what pi recorded), one after another. */
function textOf(content: unknown): string {
  if (!Array.isArray(content)) return '';
  return content
    .filter(
      (block): block is PiTextContent =>
        typeof block === 'object' &&
        block !== null &&
        (block as PiTextContent).type === 'text' &&
        typeof (block as PiTextContent).text === 'string',
    )
    .map((block) => block.text)
    .join('\n');
}
