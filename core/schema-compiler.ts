// Compiles a tool's schemas (`parameters`, `output_schema`) with one compiler per generation (its
// ajv caches are dropped with the generation). Strict: an unknown keyword is an error.
// Nothing a schema or an argument holds can make a check superlinear on the host's thread:
// patterns run on RE2, `enum` and `uniqueItems` hash, and each check has a work and a step budget.
// The step budget: the compiled copy of each schema carries a keyword in every subschema that
// counts each application of it to a value, so no schema can make a check superlinear (`oneOf`
// branches that each recurse into the same data take time exponential in its depth: 18 levels
// took 68 s; a wide `anyOf` over a long array multiplies). The model sees the original.
import { _, Ajv, type CodeKeywordDefinition, type FormatDefinition, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { useHashedKeywords } from './hashed-keywords.js';
import { rememberListing } from './arguments.js';
import { LinearPatterns } from './linear-pattern.js';
import {
  findSchemaProblems,
  MAX_REPORTED_SCHEMA_PROBLEMS,
  schemaPathText,
  type SchemaProblem,
  type SchemaProblems,
} from './schema-problems.js';
import { isSchemaObject, mapSubschemas, placeOf, VALUE_KEYWORDS } from './schema-shape.js';
import { chargeValidationWork, countValidationStep } from './validation-budget.js';

type AddedFormat = Ajv['formats'][string];
type FormatValidator = (text: string) => boolean;

// ajv-formats is CommonJS with a default export that TypeScript sees one level down.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const STEP_KEYWORD = 'moonpoolStep';

const stepKeyword: CodeKeywordDefinition = {
  keyword: STEP_KEYWORD,
  schemaType: 'boolean',
  code(cxt) {
    const count = cxt.gen.scopeValue('func', { ref: countValidationStep });
    cxt.gen.code(_`${count}()`);
  },
};

/** A copy of `schema` with the counting keyword in every subschema (`true`/`false` stay as they are). */
function withStepCounting(schema: unknown): unknown {
  if (!isSchemaObject(schema)) return schema;
  const copy: Record<string, unknown> = { [STEP_KEYWORD]: true };
  for (const [key, value] of Object.entries(schema)) copy[key] = mapSubschemas(key, value, withStepCounting);
  return copy;
}

/** Largest schema accepted, as JSON text. */
export const MAX_SCHEMA_CHARS = 256 * 1024;
/** Deepest schema accepted. */
export const MAX_SCHEMA_DEPTH = 32;
/**
 * Most keywords (keys of schema objects) in one of a tool's schemas. Compile time grows with them (about 0.1 ms a
 * keyword with patterns): a tool at the limit takes about 0.1-0.25 s, a config at the total about 0.5 s.
 */
export const MAX_SCHEMA_KEYWORDS = 1_000;
/** Most keywords in all tools' schemas of one config together. */
export const MAX_TOTAL_SCHEMA_KEYWORDS = 5_000;

/** The keys of every schema object in `schema`, not counting what value keywords hold. */
export function schemaKeywordCount(schema: unknown): number {
  if (typeof schema !== 'object' || schema === null) return 0;
  let count = 0;
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(schema)) count += schemaKeywordCount(value);
    else count += 1 + (VALUE_KEYWORDS.has(key) ? 0 : schemaKeywordCount(value));
  }
  return count;
}

/** Longest string a `format` is checked on; a longer one does not match (URLs stop near 2,000 in practice). */
export const MAX_FORMAT_CHARS = 2048;

// ajv-formats' checks are regular expressions and parsers. Some of its expressions backtrack
// quadratically on V8 (`url`: 13 ms at 4,000 characters): each check is charged as if it did, so
// one call cannot make many of them.
function chargeFormats(ajv: Ajv): void {
  for (const [name, format] of Object.entries<AddedFormat>(ajv.formats)) {
    const definition = typeof format === 'object' && !(format instanceof RegExp) ? format : undefined;
    const validate = definition?.validate ?? format;
    if ((definition?.type ?? 'string') !== 'string' || definition?.async || typeof validate === 'boolean') continue;
    const test = validate instanceof RegExp ? (text: string) => validate.test(text) : (validate as FormatValidator);
    const charged = (text: string): boolean => {
      if (text.length > MAX_FORMAT_CHARS) return false;
      chargeValidationWork(
        text.length + Math.ceil((text.length * text.length) / 64),
        () => `checking a ${text.length}-character string as format "${name}"`,
      );
      return test(text);
    };
    ajv.addFormat(name, definition ? { ...(definition as FormatDefinition<string>), validate: charged } : charged);
  }
}

// The twin stops at the first error and skips the meta-schema check the compiler already made. It
// logs what strict mode would throw into `strictLog`, so every such problem can be listed.
function newAjv(patterns: LinearPatterns, strictLog?: string[]): Ajv {
  const log = (message: string): unknown => strictLog!.push(String(message).replace(/^strict mode: /, ''));
  const ajv = new Ajv({
    allErrors: !strictLog,
    validateSchema: !strictLog,
    strict: strictLog ? 'log' : true,
    strictRequired: false,
    allowUnionTypes: true,
    $data: false,
    code: { regExp: patterns.engine },
    ...(strictLog ? { logger: { log: () => undefined, warn: log, error: log } } : {}),
  });
  useHashedKeywords(ajv);
  ajv.addKeyword(stepKeyword);
  addFormats(ajv);
  chargeFormats(ajv);
  return ajv;
}

/**
 * A generation's compilers, sharing its patterns: `ajv` lists every problem (of a schema, and of
 * arguments on a second pass, compiled the first time a call fails: each error costs ajv time);
 * `firstError` stops at the first, compiles the validators calls use, and logs into `strictLog`
 * every problem strict mode has with a schema (a strict ajv throws only the first).
 */
export interface SchemaCompiler {
  ajv: Ajv;
  firstError: Ajv;
  strictLog: string[];
  patterns: LinearPatterns;
}

export function createSchemaCompiler(): SchemaCompiler {
  const patterns = new LinearPatterns();
  const strictLog: string[] = [];
  return { ajv: newAjv(patterns), firstError: newAjv(patterns, strictLog), strictLog, patterns };
}

/** What compiling a tool's schema gave: its validator, or its problems (the first MAX_REPORTED_SCHEMA_PROBLEMS of `total`). */
export type CompiledParameters = { validate: ValidateFunction } | SchemaProblems;

const whole = (field: string, message: string): SchemaProblems => ({
  problems: [{ path: [], message: `${field}: ${message}` }],
  total: 1,
});

/**
 * Compiles a tool's `parameters` (or another of its schemas, `field`), or returns every problem found, each at its
 * path. A schema past a limit is refused for that alone (its size bounds every walk below).
 */
export function compileParameters(
  compiler: SchemaCompiler,
  schema: Record<string, unknown>,
  field = 'parameters',
): CompiledParameters {
  const size = JSON.stringify(schema).length;
  if (size > MAX_SCHEMA_CHARS)
    return whole(field, `the schema is ${size} characters; the limit is ${MAX_SCHEMA_CHARS}`);
  if (depthOf(schema) > MAX_SCHEMA_DEPTH)
    return whole(field, `the schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  const keywords = schemaKeywordCount(schema);
  if (keywords > MAX_SCHEMA_KEYWORDS)
    return whole(field, `the schema has ${keywords} keywords; the limit is ${MAX_SCHEMA_KEYWORDS}`);
  const counted = withStepCounting(schema) as object;
  const found = findSchemaProblems(compiler.ajv, compiler.patterns, schema, field);
  compiler.strictLog.length = 0;
  let thrown: Error | undefined;
  try {
    const validate = compiler.firstError.compile(counted);
    if (found.total === 0 && compiler.strictLog.length === 0) {
      let listing: ValidateFunction | undefined;
      rememberListing(validate, () => (listing ??= compiler.ajv.compile(counted)));
      return { validate };
    }
  } catch (error) {
    thrown = error as Error;
  }
  // A rejected schema leaves no `$id` behind that a later schema could clash with.
  compiler.firstError.removeSchema(counted);
  // What strict mode has to say; beside other problems, only what it places (a keyword of one type without `type`).
  const strict = [...new Set(compiler.strictLog)]
    .map((message) => strictProblem(schema, message, field))
    .filter((problem) => found.total === 0 || problem.path.length > 0);
  if (thrown !== undefined && found.total === 0 && strict.length === 0) return whole(field, thrown.message);
  const problems = [...found.problems, ...strict].sort((a, b) =>
    schemaPathText(field, a.path).localeCompare(schemaPathText(field, b.path)),
  );
  return { problems: problems.slice(0, MAX_REPORTED_SCHEMA_PROBLEMS), total: found.total + strict.length };
}

/** A strict-mode message as a problem at its place: a keyword of one type in a schema without `type` says which type to add. */
function strictProblem(schema: Record<string, unknown>, message: string, field: string): SchemaProblem {
  const missing = /^missing type "(\w+)" for keyword "(\w+)" at "(#[^"]*)" \(strictTypes\)$/.exec(message);
  if (!missing) return { path: [], message: `${field}: ${message}` };
  const [, type, keyword, pointer] = missing;
  const path = placeOf(schema, pointer!).keys;
  return {
    path: [...path, keyword!],
    message: `${schemaPathText(field, path)}: \`${keyword}\` applies only to a ${type}, and the schema has no \`type\`: add type = '${type}'`,
  };
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const item of Object.values(value)) deepest = Math.max(deepest, depthOf(item));
  return deepest + 1;
}
