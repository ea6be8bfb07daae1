// Every mistake in a tool's schema (`parameters`, `output_schema`) at once, each at its own path
// with the value written and what is allowed: unknown keywords (with the known one meant), bad
// `type` names (with the type meant, by spelling or by another language's name for it), patterns
// RE2 cannot run, whatever the meta-schema rejects, and what it allows but no author means (a
// `required` name no property has, a `default` not of its `type`). ajv's strict compile stops at
// the first; this runs before it. Bounded: at most MAX_REPORTED_SCHEMA_PROBLEMS are kept, the
// rest counted.
import type { Ajv, ErrorObject } from 'ajv';
import type { LinearPatterns } from './linear-pattern.js';
import { closestName, cutKey, describeValue, printable, shownKey } from './name-suggestion.js';
import { isSchemaObject, mapSubschemas, placeOf, type SchemaPathKey } from './schema-shape.js';

/** A problem in a schema: where it is written (keys from the schema's field) and the whole message. */
export interface SchemaProblem {
  path: SchemaPathKey[];
  message: string;
}

export interface SchemaProblems {
  problems: SchemaProblem[];
  /** How many there were: more than `problems` holds when the list was cut. */
  total: number;
}

export const JSON_SCHEMA_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;
/** Problems one tool's schema reports; the rest are counted in one line. */
export const MAX_REPORTED_SCHEMA_PROBLEMS = 20;
/** Other languages' names for the JSON Schema types, which no spelling distance finds. */
const TYPE_NAMES_ELSEWHERE: Readonly<Record<string, string>> = {
  str: 'string',
  text: 'string',
  int: 'integer',
  float: 'number',
  double: 'number',
  bool: 'boolean',
  list: 'array',
  table: 'object',
  dict: 'object',
  map: 'object',
  nil: 'null',
  none: 'null',
};
// ajv's own keyword for step counting is no keyword an author means.
const INTERNAL_KEYWORDS = new Set(['moonpoolStep']);
/** The `$schema` of JSON Schema draft-07, with or without its empty fragment. */
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/** `parameters.properties.name.type`, `parameters.required[1]` (Lua's indices, from 1), `parameters.properties["a b"]`. */
export function schemaPathText(field: string, path: readonly SchemaPathKey[]): string {
  let text = field;
  for (const key of path) {
    if (typeof key === 'number') text += `[${key + 1}]`;
    else text += /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${printable(JSON.stringify(cutKey(key)))}]`;
  }
  return text;
}

class ProblemList {
  readonly problems: SchemaProblem[] = [];
  /** Every path reported and each of its ancestors: the meta-schema's broader view of them is left out. */
  readonly covered = new Set<string>();
  total = 0;

  constructor(readonly field: string) {}

  /** Adds the problem `message` at `path`, said of the place `at` (the path, or the schema holding it). */
  add(path: SchemaPathKey[], message: string, at = path): void {
    this.total++;
    for (let length = 0; length <= path.length; length++) this.covered.add(JSON.stringify(path.slice(0, length)));
    if (this.problems.length < MAX_REPORTED_SCHEMA_PROBLEMS)
      this.problems.push({ path, message: `${schemaPathText(this.field, at)}: ${message}` });
  }
}

function typeProblems(list: ProblemList, path: SchemaPathKey[], value: unknown): void {
  const check = (name: unknown, where: SchemaPathKey[]): void => {
    if (typeof name !== 'string' || (JSON_SCHEMA_TYPES as readonly string[]).includes(name)) return;
    const meant = Object.hasOwn(TYPE_NAMES_ELSEWHERE, name.toLowerCase())
      ? TYPE_NAMES_ELSEWHERE[name.toLowerCase()]
      : closestName(name, JSON_SCHEMA_TYPES);
    list.add(
      where,
      `${describeValue(name)} is not a JSON Schema type${meant ? ` (did you mean "${meant}"?)` : ''}; the types are ${JSON_SCHEMA_TYPES.join(', ')}`,
    );
  };
  if (Array.isArray(value)) value.forEach((name, index) => check(name, [...path, index]));
  else check(value, path);
}

/** The JSON Schema types `value` is an instance of (an empty table is both an array and an object, as Lua writes it). */
function typesOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return value.length === 0 ? ['array', 'object'] : ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  if (isSchemaObject(value)) return Object.keys(value).length === 0 ? ['object', 'array'] : ['object'];
  return [typeof value];
}

/** A `required` name that no property has: every call would then fail with `args.pth: is required`. */
function requiredProblems(list: ProblemList, schema: Record<string, unknown>, where: SchemaPathKey[]): void {
  const { required, properties } = schema;
  // Names other properties may match are left alone: they can be met without a `properties` entry.
  if (
    !Array.isArray(required) ||
    !isSchemaObject(properties) ||
    schema['patternProperties'] !== undefined ||
    isSchemaObject(schema['additionalProperties'])
  )
    return;
  const names = Object.keys(properties);
  required.forEach((name, index) => {
    if (typeof name !== 'string' || Object.hasOwn(properties, name)) return;
    const meant = closestName(name, names);
    list.add(
      [...where, 'required', index],
      `"${shownKey(name)}" is required but is not in properties${meant ? ` (did you mean "${shownKey(meant)}"?)` : ''}; every call would fail`,
    );
  });
}

/** A `default` that is not of the schema's own `type`. */
function defaultProblems(list: ProblemList, schema: Record<string, unknown>, where: SchemaPathKey[]): void {
  if (!Object.hasOwn(schema, 'default')) return;
  const declared = [schema['type']].flat().filter((type): type is string => typeof type === 'string');
  if (declared.length === 0) return;
  const value = schema['default'];
  if (typesOf(value).some((type) => declared.includes(type))) return;
  list.add([...where, 'default'], `${describeValue(value)} is not of the schema's type (${declared.join(' or ')})`);
}

/** The problems of `schema` (at `where`) and of every schema inside it, but what the meta-schema finds. */
function walkProblems(
  list: ProblemList,
  known: ReadonlySet<string>,
  patterns: LinearPatterns,
  schema: Record<string, unknown>,
  where: SchemaPathKey[] = [],
): void {
  const pattern = (text: string, at: SchemaPathKey[]): void => {
    const problem = patterns.problem(text);
    if (problem !== undefined) list.add(at, problem);
  };
  for (const [keyword, value] of Object.entries(schema)) {
    if (keyword === 'type') typeProblems(list, [...where, keyword], value);
    else if (!known.has(keyword)) {
      const meant = closestName(keyword, known);
      list.add(
        [...where, keyword],
        `unknown keyword \`${shownKey(keyword)}\`${meant ? ` (did you mean \`${meant}\`?)` : ''}`,
        where,
      );
    } else if (keyword === 'pattern' && typeof value === 'string') pattern(value, [...where, keyword]);
    else if (keyword === 'patternProperties' && isSchemaObject(value))
      for (const key of Object.keys(value)) pattern(key, [...where, keyword, key]);
  }
  requiredProblems(list, schema, where);
  defaultProblems(list, schema, where);
  // Recursion is bounded: the schema is no deeper than MAX_SCHEMA_DEPTH.
  for (const [keyword, value] of Object.entries(schema))
    mapSubschemas(keyword, value, (item, key) => {
      if (isSchemaObject(item))
        walkProblems(list, known, patterns, item, [...where, keyword, ...(key === undefined ? [] : [key])]);
    });
}

// One message for all the meta-schema said about one place: `must be object or boolean or array`.
function metaMessage(errors: ErrorObject[]): string {
  const plain = errors.filter((error) => !['anyOf', 'oneOf', 'if'].includes(error.keyword));
  const shown = plain.length > 0 ? plain : errors;
  if (shown.every((error) => error.keyword === 'type')) {
    const types = new Set(shown.flatMap((error) => [(error.params as { type: string | string[] }).type].flat()));
    return `must be ${[...types].join(' or ')}`;
  }
  const enumError = shown.find((error) => error.keyword === 'enum');
  if (enumError)
    return `must be one of ${(enumError.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
  return shown[0]!.message ?? 'is invalid';
}

/** Whether `$schema`, when given, names the draft the schemas are checked as (ajv would throw for any other). */
function metaSchemaKnown(list: ProblemList, $schema: unknown): boolean {
  if ($schema === undefined || (typeof $schema === 'string' && DRAFT_07.test($schema))) return true;
  list.add(
    ['$schema'],
    `moonpool checks schemas as JSON Schema draft-07: leave \`$schema\` out, or set it to "http://json-schema.org/draft-07/schema#" (got ${describeValue($schema)})`,
  );
  return false;
}

/** Every problem in `schema` (the table of `field`), cut to MAX_REPORTED_SCHEMA_PROBLEMS. */
export function findSchemaProblems(
  ajv: Ajv,
  patterns: LinearPatterns,
  schema: Record<string, unknown>,
  field: string,
): SchemaProblems {
  const list = new ProblemList(field);
  const known = new Set(Object.keys(ajv.RULES.keywords).filter((keyword) => !INTERNAL_KEYWORDS.has(keyword)));
  walkProblems(list, known, patterns, schema);
  if (!metaSchemaKnown(list, schema.$schema)) return list;
  if (!ajv.validateSchema(schema)) {
    const byPath = new Map<string, ErrorObject[]>();
    for (const error of ajv.errors ?? [])
      (byPath.get(error.instancePath) ?? byPath.set(error.instancePath, []).get(error.instancePath)!).push(error);
    for (const [instancePath, errors] of byPath) {
      const { keys, value } = placeOf(schema, instancePath);
      if (list.covered.has(JSON.stringify(keys))) continue;
      // Where a schema was due and a type's name was written (`items = 'string'`), the schema meant.
      const meant = (JSON_SCHEMA_TYPES as readonly unknown[]).includes(value)
        ? `: write { type = '${String(value)}' }`
        : '';
      list.add(keys, `${metaMessage(errors)} (got ${describeValue(value)})${meant}`);
    }
  }
  return list;
}
