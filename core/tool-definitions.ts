// Checks what `registry:add` received. Every problem is a diagnostic naming file:line and the
// field; a definition with an error is dropped, the others load. The first of two tools with the
// same name wins.
import type { Ajv, ValidateFunction } from 'ajv';
import type { Diagnostic, RawToolDefinition } from '../shared/protocol.js';
import { schemaFromLua } from './lua-schema.js';
import { compileParameters, MAX_TOTAL_SCHEMA_KEYWORDS, schemaKeywordCount } from './schema-compiler.js';
import { checkAnnotations, type ToolAnnotations } from './tool-annotations.js';
import { checkOutputSchema } from './tool-output-schema.js';

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** A JSON Schema object describing a tool's arguments. */
export type ParametersSchema = { type: 'object' } & Record<string, unknown>;

export interface ToolDefinition {
  name: string;
  description: string;
  parameters: ParametersSchema;
  /** The file that defined `run`: calls run in this module's pool. */
  module: string;
  /** Where `registry:add` was called. */
  file: string;
  line: number;
  /** Per-tool wall-clock limit from `timeout` (seconds), when set. */
  timeoutMs?: number;
  hasRender: boolean;
  hasAvailable: boolean;
  /** From `annotations`, when given. */
  annotations?: ToolAnnotations;
  /** From `output_schema`, when given: what `run`'s `structured` table must match. */
  outputSchema?: ParametersSchema;
}

export interface CheckedTool {
  definition: ToolDefinition;
  validate: ValidateFunction;
  /** Checks `structured` against `outputSchema`, when the tool has one. */
  validateOutput?: ValidateFunction;
}

export interface CheckResult {
  tools: CheckedTool[];
  diagnostics: Diagnostic[];
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return 'a table';
}

export function checkDefinitions(raw: RawToolDefinition[], ajv: Ajv): CheckResult {
  const tools: CheckedTool[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Map<string, RawToolDefinition>();
  let schemaKeywords = 0;
  const compiledSchemas = new Map<string, ReturnType<typeof compileParameters>>();

  for (const definition of raw) {
    const name = typeof definition.name === 'string' ? definition.name : undefined;
    const report = (severity: Diagnostic['severity'], message: string): void => {
      diagnostics.push({ severity, file: definition.file, line: definition.line, ...(name ? { tool: name } : {}), message });
    };
    const errorsBefore = diagnostics.length;
    const label = name ? `tool '${name}'` : 'registry:add';

    if (definition.conversionError) report('error', `${label}: ${definition.conversionError}`);
    if (name === undefined || !TOOL_NAME_PATTERN.test(name)) {
      report('error', `registry:add: \`name\` must match ${TOOL_NAME_PATTERN.source} (got ${describeValue(definition.name)})`);
    }
    if (typeof definition.description !== 'string' || definition.description.trim() === '') {
      report('error', `${label}: \`description\` must be a non-empty string (got ${describeValue(definition.description)})`);
    }
    if (definition.runType !== 'function') report('error', `${label}: \`run\` must be a function (got ${definition.runType})`);
    for (const [field, type] of [['render', definition.renderType], ['available', definition.availableType]] as const) {
      if (type !== 'nil' && type !== 'function') report('error', `${label}: \`${field}\` must be a function (got ${type})`);
    }
    const timeout = definition.timeout;
    if (timeout !== null && (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout))) {
      report('error', `${label}: \`timeout\` must be a positive number of seconds (got ${describeValue(timeout)})`);
    }
    for (const field of definition.unknownFields) report('warning', `${label}: unknown field \`${field}\` is ignored`);

    const parameters = definition.parameters === null ? { type: 'object', properties: {} } : schemaFromLua(definition.parameters);
    let validate: ValidateFunction | undefined;
    if (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)) {
      report('error', `${label}: \`parameters\` must be a JSON Schema table (got ${describeValue(definition.parameters)})`);
    } else if ((parameters as Record<string, unknown>)['type'] !== 'object') {
      report('error', `${label}: parameters.type must be 'object' (got ${describeValue((parameters as Record<string, unknown>)['type'])})`);
    } else if (!definition.conversionError) {
      // Compiling is main-thread work that grows with the keywords: the config's total is bounded.
      // A schema the same as one compiled already (every tool without parameters, say) is reused.
      const key = JSON.stringify(parameters);
      let compiled = compiledSchemas.get(key);
      if (compiled === undefined) {
        schemaKeywords += schemaKeywordCount(parameters);
        if (schemaKeywords <= MAX_TOTAL_SCHEMA_KEYWORDS) {
          compiled = compileParameters(ajv, parameters);
          compiledSchemas.set(key, compiled);
        }
      }
      if (compiled === undefined) {
        report('error', `${label}: the config's parameters schemas have more than ${MAX_TOTAL_SCHEMA_KEYWORDS} keywords together; this tool's is not compiled`);
      } else if ('problems' in compiled) compiled.problems.forEach((problem) => report('error', `${label}: ${problem}`));
      else validate = compiled.validate;
    }

    const annotations = checkAnnotations(definition.annotations);
    annotations.errors.forEach((problem) => report('error', `${label}: ${problem}`));
    annotations.warnings.forEach((problem) => report('warning', `${label}: ${problem}`));
    const output = definition.conversionError ? undefined : checkOutputSchema(ajv, definition.outputSchema, MAX_TOTAL_SCHEMA_KEYWORDS - schemaKeywords);
    schemaKeywords += output?.keywords ?? 0;
    output?.problems.forEach((problem) => report('error', `${label}: ${problem}`));

    const hasErrors = diagnostics.slice(errorsBefore).some((diagnostic) => diagnostic.severity === 'error');
    if (hasErrors || !name || !validate || !definition.module) continue;
    const first = seen.get(name);
    if (first) {
      report('error', `duplicate tool name '${name}' (first defined at ${first.file}:${first.line}); this definition is ignored`);
      continue;
    }
    seen.set(name, definition);
    tools.push({
      validate,
      ...(output?.validate ? { validateOutput: output.validate } : {}),
      definition: {
        name,
        description: definition.description as string,
        parameters: parameters as ParametersSchema,
        module: definition.module,
        file: definition.file,
        line: definition.line,
        ...(typeof timeout === 'number' ? { timeoutMs: Math.round(timeout * 1000) } : {}),
        hasRender: definition.renderType === 'function',
        hasAvailable: definition.availableType === 'function',
        ...(annotations.annotations ? { annotations: annotations.annotations } : {}),
        ...(output?.schema ? { outputSchema: output.schema } : {}),
      },
    });
  }
  return { tools, diagnostics };
}
