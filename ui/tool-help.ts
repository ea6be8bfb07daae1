// What a person at the dashboard needs to call a tool: its parameters as lines (name, type,
// required, allowed values and limits, description, wrapped under its own column) for /tools, and an argument template for Tab to insert
// (the required properties, each with a placeholder of its type, enum or default).

import { columns, wrapColumns } from './text-width.js';

interface PropertySchema {
  type?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  exclusiveMinimum?: unknown;
  exclusiveMaximum?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  minItems?: unknown;
  maxItems?: unknown;
  pattern?: unknown;
  enum?: unknown;
  const?: unknown;
  default?: unknown;
  description?: unknown;
  items?: unknown;
}

interface ObjectSchema {
  properties?: Record<string, PropertySchema>;
  required?: unknown;
}

/** Allowed values shown before `, …`. */
const SHOWN_ENUM_VALUES = 6;

function propertiesOf(parameters: unknown): [string, PropertySchema][] {
  const properties = (parameters as ObjectSchema | null)?.properties;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return [];
  return Object.entries(properties).filter(
    (entry): entry is [string, PropertySchema] => entry[1] !== null && typeof entry[1] === 'object',
  );
}

function requiredOf(parameters: unknown): Set<string> {
  const required = (parameters as ObjectSchema | null)?.required;
  return new Set(Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : []);
}

function typeText(property: PropertySchema): string {
  if (Array.isArray(property.enum)) {
    const values = property.enum.slice(0, SHOWN_ENUM_VALUES).map((value) => JSON.stringify(value));
    return `one of ${values.join(', ')}${property.enum.length > SHOWN_ENUM_VALUES ? ', …' : ''}`;
  }
  if (property.const !== undefined) return `always ${JSON.stringify(property.const)}`;
  const type = Array.isArray(property.type)
    ? property.type.join(' or ')
    : typeof property.type === 'string'
      ? property.type
      : 'any';
  const items = property.items as PropertySchema | undefined;
  return type === 'array' && typeof items?.type === 'string' ? `array of ${items.type}` : type;
}

/** The limits a value must keep: `at least 2`, `at most 64 characters`, `matching ^\d+$`. */
function limitsText(property: PropertySchema): string[] {
  const limits: string[] = [];
  const number = (value: unknown): value is number => typeof value === 'number';
  if (number(property.minimum)) limits.push(`at least ${property.minimum}`);
  if (number(property.exclusiveMinimum)) limits.push(`over ${property.exclusiveMinimum}`);
  if (number(property.maximum)) limits.push(`at most ${property.maximum}`);
  if (number(property.exclusiveMaximum)) limits.push(`under ${property.exclusiveMaximum}`);
  for (const [low, high, unit] of [
    [property.minLength, property.maxLength, 'characters'],
    [property.minItems, property.maxItems, 'items'],
  ] as const) {
    if (number(low) && number(high)) limits.push(`${low}-${high} ${unit}`);
    else if (number(low)) limits.push(`at least ${low} ${unit}`);
    else if (number(high)) limits.push(`at most ${high} ${unit}`);
  }
  if (typeof property.pattern === 'string') limits.push(`matching ${property.pattern}`);
  return limits;
}

/** Description columns below which a wrapped description is left to the view's own wrapping. */
const MIN_DESCRIPTION_COLUMNS = 20;

/**
 * One line per parameter: `name  type, required, limits  description`, names and types aligned;
 * a description longer than `width` allows wraps under its own column.
 */
export function parameterLines(parameters: unknown, width = Infinity): string[] {
  const properties = propertiesOf(parameters);
  if (properties.length === 0) return ['(no arguments)'];
  const required = requiredOf(parameters);
  const rows = properties.map(([name, property]) => ({
    name,
    kind: [typeText(property), ...(required.has(name) ? ['required'] : []), ...limitsText(property)].join(', '),
    description: typeof property.description === 'string' ? property.description.split('\n')[0]! : '',
  }));
  const nameWidth = Math.max(...rows.map((row) => row.name.length));
  const kindWidth = Math.max(...rows.map((row) => row.kind.length));
  return rows.flatMap((row) => {
    const lead = `${row.name.padEnd(nameWidth)}  ${row.kind.padEnd(kindWidth)}  `;
    const room = width - columns(lead);
    if (row.description === '' || room < MIN_DESCRIPTION_COLUMNS) return [`${lead}${row.description}`.trimEnd()];
    const [first = '', ...rest] = wrapColumns(row.description, room);
    return [`${lead}${first}`, ...rest.map((part) => `${' '.repeat(columns(lead))}${part.trimStart()}`)];
  });
}

function placeholder(property: PropertySchema): unknown {
  if (property.default !== undefined) return property.default;
  if (property.const !== undefined) return property.const;
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0];
  const type = Array.isArray(property.type) ? (property.type[0] as unknown) : property.type;
  switch (type) {
    case 'string':
      return '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    default:
      return null;
  }
}

/** The required arguments as one line of JSON, e.g. `{"path": "", "limit": 0}`; `{}` when none are required. */
export function argumentTemplate(parameters: unknown): string {
  const required = requiredOf(parameters);
  const fields = propertiesOf(parameters)
    .filter(([name]) => required.has(name))
    .map(([name, property]) => `${JSON.stringify(name)}: ${JSON.stringify(placeholder(property))}`);
  return `{${fields.join(', ')}}`;
}
