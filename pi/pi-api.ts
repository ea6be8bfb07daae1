// The part of pi's extension API moonpool uses, as plain structural types: `moonpool/pi` must not
// import pi's packages at run time (pi loads extensions with jiti and pi is not a dependency), and
// its declarations must not need pi installed. The tests check these against pi's own types.

/** A TUI component as pi draws it: every line at most `width` columns wide. */
export interface PiComponent {
  render(width: number): string[];
  invalidate(): void;
}

/** The colours moonpool's rows use; pi's Theme has these and more. */
export type PiThemeColor = 'toolTitle' | 'toolOutput' | 'muted' | 'dim' | 'error' | 'warning';

export interface PiTheme {
  fg(color: PiThemeColor, text: string): string;
  bold(text: string): string;
}

export interface PiTextContent {
  type: 'text';
  text: string;
}

export interface PiToolResult<Details> {
  content: PiTextContent[];
  details: Details;
}

export interface PiRenderContext {
  /** Asks pi to draw this tool row again. */
  invalidate(): void;
  /** What renderResult returned last time for this row. */
  lastComponent: PiComponent | undefined;
  isError: boolean;
}

export interface PiToolDefinition<Details> {
  name: string;
  label: string;
  description: string;
  /** pi accepts plain JSON Schema here. */
  parameters: object;
  execute(
    toolCallId: string,
    params: unknown,
    signal: AbortSignal | undefined,
    onUpdate: ((partial: PiToolResult<Details>) => void) | undefined,
    context: PiContext,
  ): Promise<PiToolResult<Details>>;
  /** The row's first line, above what renderResult draws. */
  renderCall(args: unknown, theme: PiTheme): PiComponent;
  renderResult(
    result: { content: unknown; details?: unknown },
    options: { expanded: boolean; isPartial: boolean },
    theme: PiTheme,
    context: PiRenderContext,
  ): PiComponent;
}

export interface PiUi {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
  /** The option picked, or undefined when the selector was dismissed. */
  select(title: string, options: string[], opts?: { signal?: AbortSignal }): Promise<string | undefined>;
  /** Yes or no; a dismissed dialog is no. */
  confirm(title: string, message: string, opts?: { signal?: AbortSignal }): Promise<boolean>;
}

export interface PiContext {
  hasUI: boolean;
  ui: PiUi;
}

export interface PiToolResultEvent {
  toolName: string;
  details: unknown;
  isError: boolean;
}

/** pi's tool_execution_start (`args` as the model wrote them, before pi converts them) and tool_execution_end. */
export interface PiToolExecutionEvent {
  toolCallId: string;
  toolName: string;
  args?: unknown;
}

export interface PiExtensionApi {
  registerTool(tool: PiToolDefinition<unknown>): void;
  on(event: 'session_start', handler: (event: unknown, context: PiContext) => Promise<void> | void): void;
  on(event: 'session_shutdown', handler: (event: unknown, context: PiContext) => Promise<void> | void): void;
  on(
    event: 'tool_result',
    handler: (event: PiToolResultEvent, context: PiContext) => { isError: true } | undefined,
  ): void;
  on(event: 'tool_execution_start' | 'tool_execution_end', handler: (event: PiToolExecutionEvent) => void): void;
  on(event: 'tool_call', handler: () => undefined): void;
}
