// How a value the config wrote is named in a diagnostic: short and bounded, in Lua's terms
// (`"strng"`, `number 5`, `a table`), so a 1 MB string costs a message of 40 characters.

const SHOWN_STRING_CHARS = 40;

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string') return JSON.stringify(value.length > SHOWN_STRING_CHARS ? `${value.slice(0, SHOWN_STRING_CHARS)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return 'a table';
}

const SHOWN_KEY_CHARS = 60;

/** A key as it is shown in a message: whole when short, else its start and its length. */
export function shownKey(key: string): string {
  return key.length > SHOWN_KEY_CHARS ? `${key.slice(0, SHOWN_KEY_CHARS)}… (${key.length.toLocaleString('en-US')} characters)` : key;
}
