// Lua has one empty table where JSON Schema has `{}` and `[]`. A worker sends every empty table
// as `[]`; this turns each into what its keyword expects: `[]` for list keywords (`required`,
// `enum`, `allOf`…), `{}` for a schema or a map of schemas (`properties`, `items`…), by the
// keyword lists of schema-shape.ts.
import {
  isSchemaObject,
  LIST_OF_SCHEMAS_KEYWORDS,
  MAP_OF_SCHEMAS_KEYWORDS,
  ONE_SCHEMA_KEYWORDS,
} from './schema-shape.js';

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  isSchemaObject(value) && !(value instanceof Uint8Array);

const isEmptyList = (value: unknown): boolean => Array.isArray(value) && value.length === 0;

// Lua tables have no key order; schemas come out in this order, then alphabetically, so the
// model and `moonpool list` always see the same text.
const KEY_ORDER = [
  '$schema',
  '$id',
  'type',
  'title',
  'description',
  'properties',
  'required',
  'items',
  'enum',
  'default',
];

function keyRank(key: string): number {
  const rank = KEY_ORDER.indexOf(key);
  return rank === -1 ? KEY_ORDER.length : rank;
}

function orderedEntries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).sort(([a], [b]) => keyRank(a) - keyRank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

export function schemaFromLua(value: unknown): unknown {
  if (isEmptyList(value)) return {};
  if (!isPlainObject(value)) return value;
  const schema: Record<string, unknown> = {};
  for (const [key, item] of orderedEntries(value)) {
    if (LIST_OF_SCHEMAS_KEYWORDS.has(key)) schema[key] = Array.isArray(item) ? item.map(schemaFromLua) : item;
    else if (MAP_OF_SCHEMAS_KEYWORDS.has(key)) schema[key] = mapOfSchemas(item);
    else if (ONE_SCHEMA_KEYWORDS.has(key))
      schema[key] = Array.isArray(item) && item.length > 0 ? item.map(schemaFromLua) : schemaFromLua(item);
    else schema[key] = item;
  }
  return schema;
}

function mapOfSchemas(value: unknown): unknown {
  if (isEmptyList(value)) return {};
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(orderedEntries(value).map(([name, schema]) => [name, schemaFromLua(schema)]));
}
