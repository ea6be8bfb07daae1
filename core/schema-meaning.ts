// Mistakes a JSON Schema allows but no tool author means, found beside the meta-schema's: a
// `required` name that no property has (every call would then fail with `args.pth: is required`),
// and a `default` that is not of the schema's own `type`.
import { closestName } from './name-suggestion.js';
import { isSchemaObject, subschemasOf, type SchemaPathKey } from './schema-shape.js';
import { describeValue, shownKey } from './value-description.js';

/** The JSON Schema types `value` is an instance of (an empty table is both an array and an object, as Lua writes it). */
function typesOf(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return value.length === 0 ? ['array', 'object'] : ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  if (isSchemaObject(value)) return Object.keys(value).length === 0 ? ['object', 'array'] : ['object'];
  return [typeof value];
}

function requiredProblems(
  schema: Record<string, unknown>,
  where: SchemaPathKey[],
  report: (path: SchemaPathKey[], message: string) => void,
): void {
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
    report(
      [...where, 'required', index],
      `"${shownKey(name)}" is required but is not in properties${meant ? ` (did you mean "${shownKey(meant)}"?)` : ''}; every call would fail`,
    );
  });
}

function defaultProblems(
  schema: Record<string, unknown>,
  where: SchemaPathKey[],
  report: (path: SchemaPathKey[], message: string) => void,
): void {
  if (!Object.hasOwn(schema, 'default')) return;
  const declared = [schema['type']].flat().filter((type): type is string => typeof type === 'string');
  if (declared.length === 0) return;
  const value = schema['default'];
  if (typesOf(value).some((type) => declared.includes(type))) return;
  report([...where, 'default'], `${describeValue(value)} is not of the schema's type (${declared.join(' or ')})`);
}

/** Reports each such mistake in `schema` and every schema inside it, with its path. */
export function meaningProblems(
  schema: Record<string, unknown>,
  report: (path: SchemaPathKey[], message: string) => void,
): void {
  const pending: [SchemaPathKey[], Record<string, unknown>][] = [[[], schema]];
  while (pending.length > 0) {
    const [where, current] = pending.pop()!;
    requiredProblems(current, where, report);
    defaultProblems(current, where, report);
    for (const [keys, subschema] of subschemasOf(current).reverse()) pending.push([[...where, ...keys], subschema]);
  }
}
