// What a reload reports: whether the new config took over, the generation now serving, its
// diagnostics, and which tools appeared, disappeared or changed.
import type { ToolState } from './generation.js';
import type { Diagnostic } from '../shared/protocol.js';

export interface ReloadResult {
  /** True when the new config loaded and now serves; false when the previous one still does. */
  ok: boolean;
  /** The generation serving after this reload (0: none has ever loaded). */
  generation: number;
  /** The new config's problems (on failure, why it did not take over), each with file and line. */
  diagnostics: Diagnostic[];
  added: string[];
  removed: string[];
  /** Tools whose description, schema, module (or its code), timeout, callbacks, permissions or availability changed. */
  changed: string[];
  durationMs: number;
}

function fingerprint(tool: ToolState): string {
  const { description, parameters, module, timeoutMs, hasRender, hasAvailable, permissions } = tool.definition;
  return JSON.stringify([
    description,
    parameters,
    module,
    tool.moduleHash,
    timeoutMs ?? null,
    hasRender,
    hasAvailable,
    permissions ?? null,
    tool.availability.available,
  ]);
}

export function diffTools(
  before: Map<string, ToolState> | undefined,
  after: Map<string, ToolState>,
): Pick<ReloadResult, 'added' | 'removed' | 'changed'> {
  const previous = before ?? new Map<string, ToolState>();
  return {
    added: [...after.keys()].filter((name) => !previous.has(name)),
    removed: [...previous.keys()].filter((name) => !after.has(name)),
    changed: [...after.entries()]
      .filter(([name, tool]) => previous.has(name) && fingerprint(previous.get(name)!) !== fingerprint(tool))
      .map(([name]) => name),
  };
}
