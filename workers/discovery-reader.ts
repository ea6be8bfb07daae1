// Reads discovery's `definitions` and `problems` field by field under budgets (1 MiB a definition,
// 16 MiB and 10,000 definitions in all): a bad or huge value spoils only its own tool.
import type { LuaWasm } from 'wasmoon';
import type { Diagnostic, RawToolDefinition } from '../shared/protocol.js';
import { LuaConversionError, ReadBudget, type LuaStack } from './lua-stack.js';

/** What one `registry:add` definition may hold (name, description, parameters…), and all of them. */
export const DEFINITION_LIMIT_BYTES = 1024 * 1024;
export const DISCOVERY_LIMIT_BYTES = 16 * 1024 * 1024;
/** The most `registry:add` calls read from one config. */
export const MAX_DEFINITIONS = 10_000;

/** A problem the prelude reports: a located message, or a raised error whose text holds the location. */
interface LuaProblem {
  file?: string;
  line?: number;
  message?: string;
  error?: string;
  prefix?: string;
}

/** The prelude's fields of a definition (callback types, where it was added): they count toward all definitions only. */
const PRELUDE_FIELDS = ['permissionsAt', 'runType', 'renderType', 'availableType', 'module', 'file', 'line'];
/** The tool's own fields: each counts toward its definition too, and one that cannot be read spoils only itself. */
const TOOL_FIELDS = [
  'name',
  'description',
  'parameters',
  'timeout',
  'annotations',
  'outputSchema',
  'permissions',
  'fieldNames',
];
/** A field's name in Lua: `outputSchema` is `output_schema`. */
const luaName = (key: string): string => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Reads `definitions` (stack index 1) and `problems` (index 2), what the prelude's `discover` returned on thread L. */
export function readDiscovery(
  lua: LuaWasm,
  stack: LuaStack,
  L: number,
  configFile: string,
): { definitions: RawToolDefinition[]; diagnostics: Diagnostic[] } {
  const budget = new ReadBudget(DISCOVERY_LIMIT_BYTES, 'the definitions together');
  const { definitions, unread } = readDefinitions(lua, stack, L, budget);
  let problems: LuaProblem[];
  try {
    problems = stack.readValue(L, 2, 'problems', budget) as LuaProblem[];
  } catch (error) {
    if (!(error instanceof LuaConversionError)) throw error;
    problems = [{ message: `the problems found in the definitions were not read: ${error.message}` }];
  }
  if (unread) problems.push(unread);
  return { definitions, diagnostics: problems.map((problem) => problemDiagnostic(problem, configFile)) };
}

function readDefinitions(
  lua: LuaWasm,
  stack: LuaStack,
  L: number,
  whole: ReadBudget,
): { definitions: RawToolDefinition[]; unread?: LuaProblem } {
  const count = Number(lua.lua_rawlen(L, 1));
  const unread = (left: number, why: string): LuaProblem => ({
    message: `${left.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} tool definitions were not read: ${why}`,
  });
  const definitions: RawToolDefinition[] = [];
  for (let i = 1; i <= Math.min(count, MAX_DEFINITIONS); i++) {
    lua.lua_rawgeti(L, 1, BigInt(i));
    const own = new ReadBudget(DEFINITION_LIMIT_BYTES, 'definition', whole);
    const field = (key: string, budget: ReadBudget): unknown => {
      lua.lua_getfield(L, -1, luaName(key));
      try {
        return stack.readValue(L, -1, luaName(key), budget);
      } finally {
        lua.lua_settop(L, -2);
      }
    };
    const definition: Record<string, unknown> = {};
    try {
      for (const key of PRELUDE_FIELDS) definition[key] = field(key, whole);
    } catch (error) {
      if (!(error instanceof LuaConversionError)) throw error;
      lua.lua_settop(L, -2);
      return { definitions, unread: unread(count - i + 1, error.message) };
    }
    if (definition['permissionsAt'] === null) delete definition['permissionsAt'];
    for (const key of TOOL_FIELDS) {
      try {
        definition[key] = field(key, own);
      } catch (error) {
        if (!(error instanceof LuaConversionError)) throw error;
        definition[key] = key === 'fieldNames' ? [] : null;
        definition['conversionError'] ??= error.message;
        definition['conversionField'] ??= key;
      }
    }
    definitions.push(definition as unknown as RawToolDefinition);
    lua.lua_settop(L, -2);
  }
  if (count <= MAX_DEFINITIONS) return { definitions };
  const limit = `a config may define at most ${MAX_DEFINITIONS.toLocaleString('en-US')} tools`;
  return { definitions, unread: unread(count - MAX_DEFINITIONS, limit) };
}

function problemDiagnostic(problem: LuaProblem, configFile: string): Diagnostic {
  if (problem.error !== undefined) {
    const diagnostic = errorDiagnostic(problem.error, problem.file ?? configFile);
    if (diagnostic.line === undefined && problem.line !== undefined) diagnostic.line = problem.line;
    return { ...diagnostic, message: `${problem.prefix ?? ''}${diagnostic.message}` };
  }
  const diagnostic: Diagnostic = { severity: 'error', message: problem.message ?? 'unknown problem' };
  if (problem.file !== undefined) diagnostic.file = problem.file;
  if (problem.line !== undefined) diagnostic.line = problem.line;
  return diagnostic;
}

/** A diagnostic from a Lua error message of the form `file:line: message`. */
export function errorDiagnostic(message: string, fallbackFile: string): Diagnostic {
  const match = /^(.+?):(\d+): ([\s\S]*)$/.exec(message);
  if (match) return { severity: 'error', file: match[1]!, line: Number(match[2]), message: match[3]! };
  return { severity: 'error', file: fallbackFile, message };
}
