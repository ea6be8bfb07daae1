// Where a JSON Schema holds other schemas: one (`not`, `items`…), a list (`allOf`…) or a map
// (`properties`…) of them; and which keywords hold data, never schemas (`enum`, `const`…). One
// list, so that every walk over a schema (step counting, checking, counting keywords) agrees;
// where a JSON pointer leads in a schema; and a schema as Lua wrote it turned into JSON Schema.

/** Keywords whose value is one schema (`items` may also be a list of them). */
export const ONE_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
]);
/** Keywords whose value is a list of schemas. */
export const LIST_OF_SCHEMAS_KEYWORDS: ReadonlySet<string> = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
/** Keywords whose value maps names to schemas (`dependencies` may map a name to a list of names instead). */
export const MAP_OF_SCHEMAS_KEYWORDS: ReadonlySet<string> = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependencies',
]);
/** Keywords whose value is data: a `pattern` key inside them is not a keyword. */
export const VALUE_KEYWORDS: ReadonlySet<string> = new Set(['enum', 'const', 'default', 'examples']);

/** A key of a schema object (a string) or an index into a list (a number, from 0). */
export type SchemaPathKey = string | number;

export function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of keyword `keyword`'s `value` with `each` applied to every schema it holds (and its index
 * or name in a list or a map), a map's entries as `entries` lists them. An empty list where a map of
 * schemas is due is an empty map (Lua writes both `{}`); anything else that is not what the keyword
 * holds is left as it is.
 */
export function mapSubschemas(
  keyword: string,
  value: unknown,
  each: (schema: unknown, key?: SchemaPathKey) => unknown,
  entries: (map: Record<string, unknown>) => [string, unknown][] = Object.entries,
): unknown {
  if (LIST_OF_SCHEMAS_KEYWORDS.has(keyword)) return Array.isArray(value) ? value.map(each) : value;
  if (ONE_SCHEMA_KEYWORDS.has(keyword)) return Array.isArray(value) && value.length > 0 ? value.map(each) : each(value);
  if (!MAP_OF_SCHEMAS_KEYWORDS.has(keyword)) return value;
  if (Array.isArray(value) && value.length === 0) return {};
  return isSchemaObject(value)
    ? Object.fromEntries(entries(value).map(([name, item]) => [name, each(item, name)]))
    : value;
}

/**
 * The keys of a JSON pointer into `schema` (ajv's instance path `/properties/a~1b/0`, or a URI
 * fragment `#/properties/a%20b`), numbers where the schema holds a list, and the value there.
 */
export function placeOf(schema: unknown, pointer: string): { keys: SchemaPathKey[]; value: unknown } {
  const fragment = pointer.startsWith('#');
  const keys: SchemaPathKey[] = [];
  let value = schema;
  for (const segment of pointer
    .slice(fragment ? 1 : 0)
    .split('/')
    .slice(1)) {
    const key = (fragment ? decodeURIComponent(segment) : segment).replaceAll('~1', '/').replaceAll('~0', '~');
    keys.push(Array.isArray(value) ? Number(key) : key);
    value = Array.isArray(value) ? value[Number(key)] : isSchemaObject(value) ? value[key] : undefined;
  }
  return { keys, value };
}

// Lua tables have no key order: schemas come out in this order, then alphabetically, so the
// model and `moonpool list` always see the same text.
const KEY_ORDER = '$schema $id type title description properties required items enum default'.split(' ');

function orderedEntries(value: Record<string, unknown>): [string, unknown][] {
  const rank = (key: string): number => (KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length);
  return Object.entries(value).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** A schema as Lua wrote it: its one empty table becomes `[]` or `{}`, as its keyword expects; keys in order. */
export function schemaFromLua(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 0) return {};
  if (!isSchemaObject(value) || value instanceof Uint8Array) return value;
  return Object.fromEntries(
    orderedEntries(value).map(([key, item]) => [key, mapSubschemas(key, item, schemaFromLua, orderedEntries)]),
  );
}
