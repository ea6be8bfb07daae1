// What a person at the dashboard needs to call a tool: its parameters as lines (name, type,
// required, allowed values, description) for /tools, and an argument template for Tab to insert
// (the required properties, each with a placeholder of its type, enum or default).

interface PropertySchema {
  type?: unknown;
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
  return Object.entries(properties).filter((entry): entry is [string, PropertySchema] => entry[1] !== null && typeof entry[1] === 'object');
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
  const type = Array.isArray(property.type) ? property.type.join(' or ') : typeof property.type === 'string' ? property.type : 'any';
  const items = property.items as PropertySchema | undefined;
  return type === 'array' && typeof items?.type === 'string' ? `array of ${items.type}` : type;
}

/** One line per parameter: `name  type, required  description`, names and types aligned. */
export function parameterLines(parameters: unknown): string[] {
  const properties = propertiesOf(parameters);
  if (properties.length === 0) return ['(no arguments)'];
  const required = requiredOf(parameters);
  const rows = properties.map(([name, property]) => ({
    name,
    kind: `${typeText(property)}${required.has(name) ? ', required' : ''}`,
    description: typeof property.description === 'string' ? property.description.split('\n')[0]! : '',
  }));
  const nameWidth = Math.max(...rows.map((row) => row.name.length));
  const kindWidth = Math.max(...rows.map((row) => row.kind.length));
  return rows.map((row) => `${row.name.padEnd(nameWidth)}  ${row.kind.padEnd(kindWidth)}  ${row.description}`.trimEnd());
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
