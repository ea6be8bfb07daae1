// Validates the model's arguments before `run` is called. Each problem reads `args.path: message`,
// so the model can fix the call. Oversized or over-deep arguments are refused before ajv sees them.
import type { ErrorObject, ValidateFunction } from 'ajv';

/** Deepest nesting of arguments accepted. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Largest arguments accepted, counted as the characters of their strings and keys. */
export const MAX_ARGUMENT_CHARS = 4 * 1024 * 1024;

function pathOf(instancePath: string): string {
  let path = 'args';
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    path += /^\d+$/.test(key) ? `[${key}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
  }
  return path;
}

function childPath(parent: string, key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;
}

function describe(error: ErrorObject): string {
  const path = pathOf(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${childPath(path, String(params['missingProperty']))}: is required`;
    case 'additionalProperties':
      return `${childPath(path, String(params['additionalProperty']))}: is not an accepted argument`;
    case 'enum':
      return `${path}: must be one of ${(params['allowedValues'] as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

/** A size or depth problem, found without recursion so hostile input cannot overflow the stack. */
export function shapeProblem(args: unknown): string | undefined {
  const pending: [unknown, number][] = [[args, 0]];
  let chars = 0;
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value === 'string') chars += value.length;
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_ARGUMENT_DEPTH) return `args: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    for (const [key, item] of Object.entries(value)) {
      chars += key.length;
      pending.push([item, depth + 1]);
    }
    if (chars > MAX_ARGUMENT_CHARS) return `args: larger than ${MAX_ARGUMENT_CHARS} characters`;
  }
  return chars > MAX_ARGUMENT_CHARS ? `args: larger than ${MAX_ARGUMENT_CHARS} characters` : undefined;
}

/** The problems with `args`, or an empty list when the call may go ahead. */
export function argumentProblems(validate: ValidateFunction, args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return [`args: must be an object (got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args})`];
  }
  const shape = shapeProblem(args);
  if (shape) return [shape];
  if (validate(args)) return [];
  return [...new Set((validate.errors ?? []).map(describe))];
}
