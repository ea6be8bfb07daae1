// Lua has one empty table where JSON Schema has `{}` and `[]`. A worker sends every empty table
// as `[]`; this turns each into what its keyword expects: `[]` for list keywords (`required`,
// `enum`, `allOf`…), `{}` for a schema or a map of schemas (`properties`, `items`…), by the
// keyword lists of schema-shape.ts.
import { isSchemaObject, mapSubschemas } from './schema-shape.js';

// Lua tables have no key order; schemas come out in this order, then alphabetically, so the
// model and `moonpool list` always see the same text.
const KEY_ORDER = '$schema $id type title description properties required items enum default'.split(' ');

function keyRank(key: string): number {
  const rank = KEY_ORDER.indexOf(key);
  return rank === -1 ? KEY_ORDER.length : rank;
}

function orderedEntries(value: Record<string, unknown>): [string, unknown][] {
  return Object.entries(value).sort(([a], [b]) => keyRank(a) - keyRank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

export function schemaFromLua(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 0) return {};
  if (!isSchemaObject(value) || value instanceof Uint8Array) return value;
  return Object.fromEntries(
    orderedEntries(value).map(([key, item]) => [key, mapSubschemas(key, item, schemaFromLua, orderedEntries)]),
  );
}
