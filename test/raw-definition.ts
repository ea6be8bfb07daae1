// A definition as the worker reads it from `registry:add`, for tests of the core's checks without
// workers: a valid tool named 'tool' in /config/init.lua, changed by `fields`.
import type { RawToolDefinition } from '../shared/protocol.js';

export function rawDefinition(fields: Partial<RawToolDefinition> = {}): RawToolDefinition {
  return {
    name: 'tool',
    description: 'A tool.',
    parameters: null,
    timeout: null,
    runType: 'function',
    renderType: 'nil',
    availableType: 'nil',
    module: '/config/init.lua',
    file: '/config/init.lua',
    line: 3,
    fieldNames: [],
    ...fields,
  };
}
