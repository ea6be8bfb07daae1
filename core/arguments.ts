// Validates the model's arguments before `run` is called. Each problem reads `args.path: message`,
// so the model can fix the call. Oversized or over-deep arguments are refused before ajv sees them,
// and a check that would cost more than its budget is abandoned and refused.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { listWithin } from './bounded-text.js';
import { firstErrorValidator } from './schema-compiler.js';
import { ValidationBudgetError, withValidationBudget } from './validation-budget.js';

/** Deepest nesting of arguments accepted. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Largest arguments accepted: the characters of their strings and keys, and one per other value. */
export const MAX_ARGUMENT_CHARS = 4 * 1024 * 1024;
/** Arguments with more values than this are told their first problem only: each costs ajv time. */
export const MAX_FULLY_CHECKED_VALUES = 2_000;
/** Allowed values named in an `enum` problem; the rest are counted. */
export const MAX_LISTED_ENUM_VALUES = 10;

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

// One enum's text serves each of its failures: a long array can fail it many times.
const allowedValuesTexts = new WeakMap<unknown[], string>();

function allowedValuesText(allowed: unknown[]): string {
  let text = allowedValuesTexts.get(allowed);
  if (text === undefined) {
    const listed = allowed.slice(0, MAX_LISTED_ENUM_VALUES).map((value) => JSON.stringify(value));
    text = listWithin(listed, { maxItems: MAX_LISTED_ENUM_VALUES, maxItemChars: 60, separator: ', ', noun: 'values' }, allowed.length);
    allowedValuesTexts.set(allowed, text);
  }
  return text;
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
      return `${path}: must be one of ${allowedValuesText(params['allowedValues'] as unknown[])}`;
    default:
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

/**
 * How many values `args` holds and its size, or its size or depth problem; found without
 * recursion so hostile input cannot overflow the stack. Size counts the characters of strings and
 * keys and one for every other value, and an array's or object's entries are counted before they
 * are visited, so a huge one is refused at once.
 */
function measure(args: unknown): { problem: string } | { values: number } {
  const tooLarge = { problem: `args: larger than ${MAX_ARGUMENT_CHARS} characters` };
  const pending: unknown[] = [args];
  const depths: number[] = [0];
  let size = 1;
  let values = 1;
  while (pending.length > 0) {
    const value = pending.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') size += Math.max(0, value.length - 1);
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= MAX_ARGUMENT_DEPTH) return { problem: `args: nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
    const container = value as Record<string, unknown>;
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const count = keys === undefined ? (value as unknown[]).length : keys.length;
    size += count;
    values += count;
    if (keys !== undefined) for (let index = 0; index < count; index++) size += keys[index]!.length;
    if (size > MAX_ARGUMENT_CHARS) return tooLarge;
    for (let index = 0; index < count; index++) {
      const item = keys === undefined ? (value as unknown[])[index] : container[keys[index]!];
      if (typeof item === 'string') size += item.length > 0 ? item.length - 1 : 0;
      else if (typeof item === 'object' && item !== null) {
        pending.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return size > MAX_ARGUMENT_CHARS ? tooLarge : { values };
}

/** A size or depth problem with `args`, or undefined. */
export function shapeProblem(args: unknown): string | undefined {
  const measured = measure(args);
  return 'problem' in measured ? measured.problem : undefined;
}

type Outcome = { valid: true } | { errors: ErrorObject[] } | { tooCostly: string };

function check(validate: ValidateFunction, args: unknown): Outcome {
  try {
    return withValidationBudget(() => validate(args)) ? { valid: true } : { errors: validate.errors ?? [] };
  } catch (error) {
    if (error instanceof ValidationBudgetError) return { tooCostly: `args: ${error.message}` };
    throw error;
  }
}

const describeAll = (errors: ErrorObject[]): string[] => [...new Set(errors.map(describe))];

/**
 * The problems with `args`, or an empty list when the call may go ahead. The check stops at the
 * first problem; arguments of at most MAX_FULLY_CHECKED_VALUES values are checked again for all
 * of them. Each pass has its own work budget.
 */
export function argumentProblems(validate: ValidateFunction, args: unknown): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return [`args: must be an object (got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args})`];
  }
  const measured = measure(args);
  if ('problem' in measured) return [measured.problem];
  const first = check(firstErrorValidator(validate) ?? validate, args);
  if ('valid' in first) return [];
  if ('tooCostly' in first) return [first.tooCostly];
  if (measured.values > MAX_FULLY_CHECKED_VALUES) {
    return [...describeAll(first.errors), `args: holds more than ${MAX_FULLY_CHECKED_VALUES} values, so only the first problem is listed`];
  }
  const all = check(validate, args);
  return describeAll('errors' in all ? all.errors : first.errors);
}
