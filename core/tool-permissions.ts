// Checks `permissions = { read = {…}, write = {…}, exec = true | {…}, env = {…} }` of
// `registry:add` (or the config's `agent.default_permissions`): each kind is `true` (anything) or a
// list; a kind left out allows nothing. Every mistake is a problem at its path; an unknown kind is
// one too, since a misspelt kind would silently allow nothing.
import type { ToolPermissions } from '../shared/protocol.js';
import { closestName, describeValue, shownKey } from './name-suggestion.js';

const KINDS = ['read', 'write', 'exec', 'env'] as const;
type Kind = (typeof KINDS)[number];

/** What each kind's list holds, and what a value must look like. */
const PATH = { noun: 'paths', valid: (item: string) => item !== '' && !item.includes('\0'), rule: 'a non-empty path' };
const ITEMS: Record<Kind, { noun: string; valid: (item: string) => boolean; rule: string }> = {
  read: PATH,
  write: PATH,
  exec: {
    noun: 'programs',
    valid: (item) => /^[^\s\0]+$/.test(item),
    rule: "a program's name or path, without spaces (its arguments are the call's)",
  },
  env: { noun: 'variables', valid: (item) => /^[^=\0]+$/.test(item), rule: 'a variable name (no `=`)' },
};

/**
 * Reads the raw `permissions` value (null or undefined when absent; an empty Lua table arrives as
 * `[]`), reporting each problem at its path (`['permissions', 'read', 0]`, list items from 0). A
 * tool with a problem is not loaded, so what comes back then is never used.
 */
export function checkPermissions(
  value: unknown,
  problem: (message: string, path: (string | number)[]) => void,
): ToolPermissions | undefined {
  if (value === null || value === undefined) return undefined;
  const permissions: ToolPermissions = { read: [], write: [], exec: [], env: [] };
  if (Array.isArray(value) && value.length === 0) return permissions;
  if (typeof value !== 'object' || Array.isArray(value)) {
    problem(`\`permissions\` must be a table with the fields read, write, exec, env (got ${describeValue(value)})`, [
      'permissions',
    ]);
    return undefined;
  }
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    if (!(KINDS as readonly string[]).includes(key)) {
      const meant = closestName(key, KINDS);
      problem(
        `unknown field \`permissions.${shownKey(key)}\` (${meant ? `did you mean \`${meant}\`?` : `the fields are ${KINDS.join(', ')}`})`,
        ['permissions', key],
      );
      continue;
    }
    const kind = key as Kind;
    const { noun, valid, rule } = ITEMS[kind];
    if (field === true) permissions[kind] = true;
    else if (field === false && kind === 'exec') permissions.exec = [];
    else if (!Array.isArray(field)) {
      problem(`permissions.${kind} must be true or a list of ${noun} (got ${describeValue(field)})`, [
        'permissions',
        kind,
      ]);
    } else {
      field.forEach((item, index) => {
        if (typeof item !== 'string' || !valid(item))
          problem(`permissions.${kind}[${index + 1}] must be ${rule} (got ${describeValue(item)})`, [
            'permissions',
            kind,
            index,
          ]);
      });
      permissions[kind] = field as string[];
    }
  }
  return permissions;
}

/** A tool whose permissions write nothing and start nothing (MCP's `readOnlyHint`); null: declared none. */
export function writesNothing(permissions: ToolPermissions | null): boolean {
  return (
    permissions !== null &&
    [permissions.write, permissions.exec].every((allowed) => allowed !== true && allowed.length === 0)
  );
}

/** What a tool with no declared permissions may do, as every view says it. */
export const FULL_ACCESS = 'full access (declares no permissions)';

/** One line: `read: ., ~/.cache/x; write: out/; exec: none; env: HOME`, or FULL_ACCESS for null. */
export function describePermissions(permissions: ToolPermissions | null): string {
  if (permissions === null) return FULL_ACCESS;
  return KINDS.map((kind) => {
    const allowed = permissions[kind];
    return `${kind}: ${allowed === true ? 'any' : allowed.length === 0 ? 'none' : allowed.join(', ')}`;
  }).join('; ');
}
