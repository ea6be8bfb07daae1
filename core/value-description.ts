// How a value the config wrote is named in a diagnostic: short and bounded, in Lua's terms
// (`"strng"`, `number 5`, `a table`), so a 1 MB string costs a message of 40 characters.

const SHOWN_STRING_CHARS = 40;

export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value === 'string')
    return JSON.stringify(value.length > SHOWN_STRING_CHARS ? `${value.slice(0, SHOWN_STRING_CHARS)}…` : value);
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${value}`;
  return 'a table';
}

const SHOWN_KEY_CHARS = 60;

/** `text` with its control characters escaped (`\n`, `\u001b`), so a diagnostic stays one line and draws nothing. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]/g, (char) =>
    char === '\n' ? '\\n' : char === '\t' ? '\\t' : `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A key whole when short, else its start and its length. */
export function cutKey(key: string): string {
  return key.length > SHOWN_KEY_CHARS
    ? `${key.slice(0, SHOWN_KEY_CHARS)}… (${key.length.toLocaleString('en-US')} characters)`
    : key;
}

/** A key as a message shows it: cut when long, control characters escaped. */
export function shownKey(key: string): string {
  return printable(cutKey(key));
}
