// Checks `annotations = { title, read_only, destructive, idempotent, open_world }` of
// `registry:add`: hints a client may show or act on (MCP's title and *Hint fields). A value of the
// wrong type is an error naming the field; an unknown key is a warning, as for registry:add itself,
// naming the field meant when it is close to one. A title is one line of printable characters.
import { closestName, describeValue } from './name-suggestion.js';

/** What a tool says about itself, beyond its description. Every field is optional. */
export interface ToolAnnotations {
  /** A human-readable name for the tool (MCP `title`). */
  title?: string;
  /** The tool does not change its environment (MCP `readOnlyHint`). */
  readOnly?: boolean;
  /** A change it makes may destroy something (MCP `destructiveHint`). */
  destructive?: boolean;
  /** Calling it again with the same arguments changes nothing more (MCP `idempotentHint`). */
  idempotent?: boolean;
  /** It reaches things outside the host, the web say (MCP `openWorldHint`). */
  openWorld?: boolean;
}

/** Longest `annotations.title` accepted (characters). */
export const MAX_TITLE_CHARS = 200;

const HINTS = {
  read_only: 'readOnly',
  destructive: 'destructive',
  idempotent: 'idempotent',
  open_world: 'openWorld',
} as const;
const FIELDS = ['title', ...Object.keys(HINTS)];
/** A C0 or C1 control character or DEL: a title shown by a client must not move its cursor or colour it. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Reads the raw `annotations` value (null or undefined when absent; an empty Lua table arrives as
 * `[]`), reporting each problem. A tool with an error is not loaded, so what comes back then is never used.
 */
export function checkAnnotations(
  value: unknown,
  report: (severity: 'error' | 'warning', message: string) => void,
): ToolAnnotations | undefined {
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'a list' : describeValue(value);
    report('error', `\`annotations\` must be a table with named fields (got ${got})`);
    return undefined;
  }
  const error = (message: string): void => report('error', message);
  const annotations: ToolAnnotations = {};
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'title') {
      if (typeof field !== 'string' || field.trim() === '' || field.length > MAX_TITLE_CHARS) {
        error(
          `annotations.title must be a non-empty string of at most ${MAX_TITLE_CHARS} characters (got ${typeof field === 'string' ? `${field.length} characters` : describeValue(field)})`,
        );
      } else if (CONTROL_CHARACTER.test(field)) {
        error(
          `annotations.title must be one line of printable characters (got a control character at position ${field.search(CONTROL_CHARACTER) + 1})`,
        );
      } else annotations.title = field;
    } else if (Object.hasOwn(HINTS, key)) {
      if (typeof field !== 'boolean') error(`annotations.${key} must be true or false (got ${describeValue(field)})`);
      else annotations[HINTS[key as keyof typeof HINTS]] = field;
    } else {
      // MCP's own names (readOnlyHint) are looked up as ours are spelled (read_only).
      const meant = closestName(key.replace(/Hint$/, '').replace(/([a-z])([A-Z])/g, '$1_$2'), FIELDS);
      report(
        'warning',
        `unknown field \`annotations.${key}\` is ignored (${meant === undefined ? `the fields are ${FIELDS.join(', ')}` : `did you mean \`${meant}\`?`})`,
      );
    }
  }
  return annotations;
}
