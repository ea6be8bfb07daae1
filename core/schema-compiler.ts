// One ajv instance per generation (its cache is keyed by schema identity, so each tool's schema
// is compiled once and dropped with its generation). Strict: an unknown keyword is an error.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export that TypeScript sees one level down.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Largest `parameters` schema accepted, as JSON text. */
export const MAX_SCHEMA_CHARS = 256 * 1024;
/** Deepest `parameters` schema accepted. */
export const MAX_SCHEMA_DEPTH = 32;
/** Longest regular expression accepted in `pattern` or `patternProperties`. */
export const MAX_PATTERN_CHARS = 1000;

// A group that holds a quantifier and is quantified itself — (a+)+, (a|aa)*, (\w*){2,} — can take
// exponential time on a short hostile string, and JavaScript cannot interrupt a regular expression
// (ajv runs it on the host's thread). Such patterns are refused when the tool is defined.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*(?:[*+?]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[*+]|\{\d+,\d*\})/;

function patternProblems(schema: unknown, path: string): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const problems: string[] = [];
  const check = (pattern: string, where: string): void => {
    if (pattern.length > MAX_PATTERN_CHARS) problems.push(`${where}: the pattern is longer than ${MAX_PATTERN_CHARS} characters`);
    else if (NESTED_QUANTIFIER.test(pattern)) problems.push(`${where}: nested quantifiers can take exponential time; rewrite the pattern without a quantified group that contains a quantifier`);
  };
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    const where = Array.isArray(schema) ? `${path}[${key}]` : `${path}.${key}`;
    if (key === 'pattern' && typeof value === 'string') check(value, where);
    if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
      for (const pattern of Object.keys(value)) check(pattern, `${where}[${JSON.stringify(pattern)}]`);
    }
    problems.push(...patternProblems(value, where));
  }
  return problems;
}

export function createSchemaCompiler(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, $data: false });
  return addFormats(ajv);
}

/** Compiles a tool's `parameters`, or returns the problems, each prefixed with its path. */
export function compileParameters(ajv: Ajv, schema: unknown): { validate: ValidateFunction } | { problems: string[] } {
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS) return { problems: [`parameters: the schema is ${size} characters; the limit is ${MAX_SCHEMA_CHARS}`] };
  if (depthOf(schema) > MAX_SCHEMA_DEPTH) return { problems: [`parameters: the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`] };
  const patterns = patternProblems(schema, 'parameters');
  if (patterns.length > 0) return { problems: patterns };
  if (!ajv.validateSchema(schema as object)) return { problems: schemaProblems(ajv.errors ?? []) };
  try {
    return { validate: ajv.compile(schema as object) };
  } catch (error) {
    return { problems: [`parameters: ${(error as Error).message.replace(/^strict mode: /, '')}`] };
  }
}

function schemaProblems(errors: ErrorObject[]): string[] {
  const byPath = new Map<string, string>();
  for (const error of errors) {
    const path = `parameters${error.instancePath.replaceAll('/', '.')}`;
    if (!byPath.has(path)) byPath.set(path, `${path}: ${error.message ?? 'is invalid'}`);
  }
  return [...byPath.values()];
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const item of Object.values(value)) deepest = Math.max(deepest, depthOf(item));
  return deepest + 1;
}
