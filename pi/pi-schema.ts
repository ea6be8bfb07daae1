// The schema pi checks a call's arguments with before moonpool sees them. pi validates with
// JavaScript regular expressions, which backtrack: `^(a+)+$` against 27 a's and a '!' blocks pi's
// thread for 6 s. So pi gets the tool's schema without `pattern` and `patternProperties` (and
// without the `additionalProperties` that depend on them), and moonpool checks them in RE2 after.

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value is one schema (`items` may also be a list, in the older tuple form). */
const SCHEMA_VALUES = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
]);
/** Keywords that match against patterns, or only mean something beside `patternProperties`. */
const PATTERN_KEYWORDS = new Set(['pattern', 'patternProperties']);
const PATTERN_DEPENDENT = new Set(['additionalProperties', 'unevaluatedProperties']);

/** `schema` with every regular expression left out; it accepts at least what `schema` accepts. */
export function withoutPatterns(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  if (Array.isArray(schema)) return schema.map(withoutPatterns);
  const source = schema as Record<string, unknown>;
  const hasPatternProperties = 'patternProperties' in source;
  const kept = Object.entries(source).filter(
    ([keyword]) => !PATTERN_KEYWORDS.has(keyword) && !(hasPatternProperties && PATTERN_DEPENDENT.has(keyword)),
  );
  // fromEntries defines own properties: a key named `__proto__` stays a key.
  return Object.fromEntries(kept.map(([keyword, value]) => [keyword, loosenKeyword(keyword, value)]));
}

function loosenKeyword(keyword: string, value: unknown): unknown {
  if (SCHEMA_MAPS.has(keyword) || keyword === 'dependencies') return mapValues(value);
  if (SCHEMA_LISTS.has(keyword) || SCHEMA_VALUES.has(keyword)) return withoutPatterns(value);
  // enum, const, default, examples and the rest are data, whatever keys they hold.
  return value;
}

function mapValues(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, withoutPatterns(schema)]));
}
