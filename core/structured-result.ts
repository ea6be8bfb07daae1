// What a successful call hands on of `run`'s `structured` table (MCP's structuredContent): a JSON
// object, checked against the tool's `output_schema` with the arguments' budgets. A tool with an
// output schema must return one; a mismatch is a problem naming the path (`structured.count: …`).
import type { ValidateFunction } from 'ajv';
import { argumentProblems, childPath, MAX_ARGUMENT_CHARS, shapeProblem } from './arguments.js';
import { isSchemaObject as isObject } from './schema-shape.js';
import type { ParametersSchema } from './tool-definitions.js';

export type StructuredOutcome = { structured?: Record<string, unknown> } | { problems: string[] };

function allowsOnlyObjects(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const type = schema['type'];
  return type === 'object' || (Array.isArray(type) && type.includes('object') && !type.includes('array'));
}

/**
 * Lua has one empty table for `{}` and `[]`, and it arrives as `[]`: one sits where the schema
 * (following `properties`, `additionalProperties` and `items`) wants only an object becomes `{}`.
 */
function fitEmptyTables(value: unknown, schema: unknown): unknown {
  if (Array.isArray(value)) {
    if (value.length === 0) return allowsOnlyObjects(schema) ? {} : value;
    const items = isObject(schema) ? schema['items'] : undefined;
    return items === undefined ? value : value.map((item) => fitEmptyTables(item, items));
  }
  if (!isObject(value) || !isObject(schema)) return value;
  const properties = isObject(schema['properties']) ? schema['properties'] : {};
  const others = schema['additionalProperties'];
  // fromEntries defines own properties: a `__proto__` key stays data.
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      const itemSchema = Object.hasOwn(properties, key) ? properties[key] : others;
      return [key, itemSchema === undefined ? item : fitEmptyTables(item, itemSchema)];
    }),
  );
}

/** The path of the first NaN or infinity in `value` (JSON has neither), or undefined. */
function nonFinitePath(value: unknown, root: string): string | undefined {
  const pending: [unknown, string][] = [[value, root]];
  while (pending.length > 0) {
    const [item, path] = pending.pop()!;
    if (typeof item === 'number' && !Number.isFinite(item)) return path;
    if (Array.isArray(item)) item.forEach((entry, index) => pending.push([entry, `${path}[${index}]`]));
    else if (isObject(item))
      for (const [key, entry] of Object.entries(item)) pending.push([entry, childPath(path, key)]);
  }
  return undefined;
}

const STRUCTURED_REQUIRED =
  'structured: is required, since the tool declares `output_schema` (return { content = "...", structured = {...} })';

/** Checks the `structured` value of a successful reply (undefined when `run` returned none). */
export function checkStructured(
  value: unknown,
  outputSchema: ParametersSchema | undefined,
  validate: ValidateFunction | undefined,
): StructuredOutcome {
  if (value === undefined) return validate ? { problems: [STRUCTURED_REQUIRED] } : {};
  const table = Array.isArray(value) && value.length === 0 ? {} : value;
  if (!isObject(table))
    return { problems: ['structured: must be a table with named fields (a JSON object), not a list'] };
  // Bounded first (4 M characters, 64 levels), so the walks below are too.
  const shape = shapeProblem(table, MAX_ARGUMENT_CHARS, 'structured');
  if (shape !== undefined) return { problems: [shape] };
  const structured = fitEmptyTables(table, outputSchema) as Record<string, unknown>;
  const nonFinite = nonFinitePath(structured, 'structured');
  if (nonFinite !== undefined)
    return { problems: [`${nonFinite}: is not a finite number (JSON has no NaN or infinity)`] };
  const problems = validate ? argumentProblems(validate, structured, 'structured') : [];
  return problems.length > 0 ? { problems } : { structured };
}
