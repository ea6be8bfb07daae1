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

export function createSchemaCompiler(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, $data: false });
  return addFormats(ajv);
}

/** Compiles a tool's `parameters`, or returns the problems, each prefixed with its path. */
export function compileParameters(ajv: Ajv, schema: unknown): { validate: ValidateFunction } | { problems: string[] } {
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS) return { problems: [`parameters: the schema is ${size} characters; the limit is ${MAX_SCHEMA_CHARS}`] };
  if (depthOf(schema) > MAX_SCHEMA_DEPTH) return { problems: [`parameters: the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`] };
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
