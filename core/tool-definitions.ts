// Checks what `registry:add` received. Every problem is a diagnostic naming the field and the
// line it is written on (the `registry:add` line when it is not written literally there); a
// definition with an error is dropped, the others load. The first of two tools with a name wins.
import type { ValidateFunction } from 'ajv';
import { lineOf, type DefinitionLines, type Fields } from './definition-lines.js';
import type { Diagnostic, RawToolDefinition } from '../shared/protocol.js';
import { closestName, describeValue, printable } from './name-suggestion.js';
import {
  compileParameters,
  MAX_SCHEMA_KEYWORDS,
  MAX_TOTAL_SCHEMA_KEYWORDS,
  schemaKeywordCount,
  type CompiledParameters,
  type SchemaCompiler,
} from './schema-compiler.js';
import { isSchemaObject, schemaFromLua } from './schema-shape.js';
import { checkAnnotations, type ToolAnnotations } from './tool-annotations.js';
import { checkPermissions } from './tool-permissions.js';
import type { ToolPermissions } from '../shared/protocol.js';

/** Every field `registry:add` reads; any other is reported (the one place to add a field). */
export const DEFINITION_FIELDS: readonly string[] = [
  'name',
  'description',
  'parameters',
  'run',
  'render',
  'available',
  'timeout',
  'annotations',
  'output_schema',
  'permissions',
];

export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Where a problem is written in a definition: field names, and list indices from 0. */
type FieldPath = readonly (string | number)[];

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
  /** From `permissions` (or the config's default), when given: what the tool may touch. */
  permissions?: ToolPermissions;
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

/**
 * A field not in DEFINITION_FIELDS: an error when it is a near miss of a field the definition
 * lacks (`paramters` without `parameters`: the tool would run without what was meant), else a
 * warning (a field of another host's API, or notes of the author's own, are ignored).
 */
function unknownField(
  field: string,
  meant: string | undefined,
  present: readonly string[],
): Pick<Diagnostic, 'severity' | 'message'> {
  const shown = printable(field);
  if (meant === undefined) return { severity: 'warning', message: `unknown field \`${shown}\` is ignored` };
  if (present.includes(meant))
    return { severity: 'warning', message: `unknown field \`${shown}\` is ignored (\`${meant}\` is set too)` };
  return { severity: 'error', message: `unknown field \`${shown}\` (did you mean \`${meant}\`?)` };
}

/** Checks every definition; `lines`, when given, places each problem on the line of its field. */
export function checkDefinitions(
  raw: RawToolDefinition[],
  compiler: SchemaCompiler,
  lines?: DefinitionLines,
): CheckResult {
  const tools: CheckedTool[] = [];
  const diagnostics: Diagnostic[] = [];
  const seen = new Map<string, RawToolDefinition>();
  let schemaKeywords = 0;
  const compiledSchemas = new Map<string, CompiledParameters>();
  // Compiling is main-thread work that grows with the keywords: the config's total is bounded. A
  // schema the same as one compiled already (every tool without parameters, say) is reused; one
  // past the one-tool limit is refused without compiling, so it costs the total nothing.
  const compile = (field: string, schema: Record<string, unknown>): CompiledParameters | undefined => {
    const key = `${field}:${JSON.stringify(schema)}`;
    const compiled = compiledSchemas.get(key);
    if (compiled !== undefined) return compiled;
    const keywords = schemaKeywordCount(schema);
    const overOneTool = keywords > MAX_SCHEMA_KEYWORDS;
    if (!overOneTool && schemaKeywords + keywords > MAX_TOTAL_SCHEMA_KEYWORDS) return undefined;
    if (!overOneTool) schemaKeywords += keywords;
    compiledSchemas.set(key, compileParameters(compiler, schema, field));
    return compiledSchemas.get(key);
  };

  for (const definition of raw) {
    // Only a valid name labels the diagnostics: a megabyte name, or one with a line break, is not repeated in each.
    const name =
      typeof definition.name === 'string' && TOOL_NAME_PATTERN.test(definition.name) ? definition.name : undefined;
    let fields: Fields | undefined | null = null;
    const report = (severity: Diagnostic['severity'], message: string, path: FieldPath = []): void => {
      // The source is read only for a definition with something to report.
      if (fields === null) fields = lines?.fieldsAt(definition.file, definition.line, definition.name);
      const line = lineOf(fields, path, definition.line);
      diagnostics.push({ severity, file: definition.file, line, ...(name ? { tool: name } : {}), message });
    };
    const errorsBefore = diagnostics.length;
    const label = name ? `tool '${name}'` : 'registry:add';
    const error = (message: string, path: FieldPath = []): void => report('error', `${label}: ${message}`, path);

    const unknown = definition.fieldNames
      .filter((field) => !DEFINITION_FIELDS.includes(field))
      .map((field) => ({ field, meant: closestName(field, DEFINITION_FIELDS) }));
    // A field misspelt (`descripton`) is said once, as the near miss, not again as the field missing.
    const misspelt = new Set(
      unknown
        .map(({ meant }) => meant)
        .filter((meant) => meant !== undefined && !definition.fieldNames.includes(meant)),
    );
    if (definition.conversionError)
      error(definition.conversionError, definition.conversionField === undefined ? [] : [definition.conversionField]);
    if (name === undefined && !misspelt.has('name'))
      error(`\`name\` must match ${TOOL_NAME_PATTERN.source} (got ${describeValue(definition.name)})`, ['name']);
    const description = definition.description;
    if ((typeof description !== 'string' || description.trim() === '') && !misspelt.has('description'))
      error(`\`description\` must be a non-empty string (got ${describeValue(description)})`, ['description']);
    if (definition.runType !== 'function' && !misspelt.has('run'))
      error(`\`run\` must be a function (got ${definition.runType})`, ['run']);
    for (const [field, type] of [
      ['render', definition.renderType],
      ['available', definition.availableType],
    ] as const) {
      if (type !== 'nil' && type !== 'function') error(`\`${field}\` must be a function (got ${type})`, [field]);
    }
    const timeout = definition.timeout;
    if (timeout !== null && (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)))
      error(`\`timeout\` must be a positive number of seconds (got ${describeValue(timeout)})`, ['timeout']);
    for (const { field, meant } of unknown) {
      const { severity, message } = unknownField(field, meant, definition.fieldNames);
      // A number key arrives as `[3]`; its line is the constructor's third item or `[3] =`.
      report(severity, `${label}: ${message}`, [/^\[(-?\d+)\]$/.exec(field)?.[1] ?? field]);
    }

    /** A schema field (`parameters`, `output_schema`): its schema and validator, or undefined after its problems. */
    const checkSchema = (
      field: string,
      value: unknown,
    ): { schema: ParametersSchema; validate: ValidateFunction } | undefined => {
      const schema = schemaFromLua(value);
      if (!isSchemaObject(schema)) {
        error(`\`${field}\` must be a JSON Schema table (got ${describeValue(value)})`, [field]);
        return undefined;
      }
      // The rest of the schema is checked all the same: `Type = 'object'` has its own mistakes to say.
      if (schema['type'] !== 'object')
        error(`${field}.type must be 'object' (got ${describeValue(schema['type'])})`, [field, 'type']);
      if (definition.conversionError) return undefined;
      // Without `type`, what strict mode would say of `properties` and the like was said just now.
      const compiled = compile(field, schema['type'] === undefined ? { type: 'object', ...schema } : schema);
      if (compiled === undefined) {
        error(
          `the config's schemas have more than ${MAX_TOTAL_SCHEMA_KEYWORDS} keywords together; this tool's ${field} is not compiled`,
          [field],
        );
      } else if ('problems' in compiled) {
        for (const problem of compiled.problems) error(problem.message, [field, ...problem.path]);
        const more = compiled.total - compiled.problems.length;
        if (more > 0)
          error(`${field}: … and ${more.toLocaleString('en-US')} more problem${more === 1 ? '' : 's'}`, [field]);
      } else if (schema['type'] === 'object')
        return { schema: schema as ParametersSchema, validate: compiled.validate };
      return undefined;
    };
    const parameters = checkSchema('parameters', definition.parameters ?? { type: 'object', properties: {} });
    const output =
      definition.outputSchema === null || definition.outputSchema === undefined
        ? undefined
        : checkSchema('output_schema', definition.outputSchema);

    const annotations = checkAnnotations(definition.annotations, (severity, message) =>
      report(severity, `${label}: ${message}`, ['annotations']),
    );
    const defaultAt = definition.permissionsAt;
    const permissions = checkPermissions(definition.permissions, (message, path) => {
      if (defaultAt === undefined) error(message, path);
      else
        diagnostics.push({
          severity: 'error',
          ...defaultAt,
          ...(name ? { tool: name } : {}),
          message: `${label}: default ${message}`,
        });
    });

    // A definition's problems read top to bottom, as its fields are written.
    const own = diagnostics.splice(errorsBefore).sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    diagnostics.push(...own);
    const hasErrors = own.some((diagnostic) => diagnostic.severity === 'error');
    if (hasErrors || !name || !parameters || !definition.module) continue;
    const first = seen.get(name);
    if (first) {
      report(
        'error',
        `duplicate tool name '${name}' (first defined at ${first.file}:${first.line}); this definition is ignored`,
      );
      continue;
    }
    seen.set(name, definition);
    tools.push({
      validate: parameters.validate,
      ...(output ? { validateOutput: output.validate } : {}),
      definition: {
        name,
        description: definition.description as string,
        parameters: parameters.schema,
        module: definition.module,
        file: definition.file,
        line: definition.line,
        ...(typeof timeout === 'number' ? { timeoutMs: Math.round(timeout * 1000) } : {}),
        hasRender: definition.renderType === 'function',
        hasAvailable: definition.availableType === 'function',
        ...(annotations ? { annotations } : {}),
        ...(output ? { outputSchema: output.schema } : {}),
        ...(permissions ? { permissions } : {}),
      },
    });
  }
  return { tools, diagnostics };
}
