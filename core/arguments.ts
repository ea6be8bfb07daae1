// Validates the model's arguments before `run` is called. Each problem reads `args.path: message`,
// so the model can fix the call. Oversized or over-deep arguments are refused before ajv sees them,
// and a check that would cost more than its budget is abandoned and refused.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { listWithin } from './bounded-text.js';
import { closestName, cutKey } from './name-suggestion.js';
import { placeOf } from './schema-shape.js';
import { ValidationBudgetError, withValidationBudget } from './validation-budget.js';

/** Deepest nesting of arguments accepted. */
export const MAX_ARGUMENT_DEPTH = 64;
/** Largest arguments accepted: the characters of their strings and keys, and one per other value. */
export const MAX_ARGUMENT_CHARS = 4 * 1024 * 1024;
/**
 * Steps (see validation-budget.ts) of the second pass that lists every problem. Each error costs
 * ajv time, and errors returned through a `$ref` are copied at every level, so only a small
 * check is run again; a larger one is told its first problem.
 */
export const MAX_LISTING_STEPS = 2_000;
/** Allowed values named in an `enum` problem; the rest are counted. */
export const MAX_LISTED_ENUM_VALUES = 10;

/** `parent.key`, or `parent["key"]` for a key that is no Lua name; a long key is cut, with its length. */
export function childPath(parent: string, key: string): string {
  const shown = cutKey(key);
  return shown === key && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${parent}.${key}`
    : `${parent}[${JSON.stringify(shown)}]`;
}

/** `args.a[3]["b c"]` for ajv's instance path `/a/3/b c`. */
function pathOf(instancePath: string, root: string): string {
  let path = root;
  for (const segment of instancePath.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    path = /^\d{1,10}$/.test(key) ? `${path}[${key}]` : childPath(path, key);
  }
  return path;
}

// One enum's text serves each of its failures: a long array can fail it many times.
const allowedValuesTexts = new WeakMap<unknown[], string>();

function allowedValuesText(allowed: unknown[]): string {
  let text = allowedValuesTexts.get(allowed);
  if (text === undefined) {
    const listed = allowed.slice(0, MAX_LISTED_ENUM_VALUES).map((value) => JSON.stringify(value));
    text = listWithin(
      listed,
      { maxItems: MAX_LISTED_ENUM_VALUES, maxItemChars: 60, separator: ', ', noun: 'values' },
      allowed.length,
    );
    allowedValuesTexts.set(allowed, text);
  }
  return text;
}

/** Keys of an object a required property's name is compared with: the first few suffice for a misspelling. */
const MAX_KEYS_COMPARED = 100;

/** A key of the object at `instancePath` in `args` that misspells `missing`, if any. */
function misspelling(args: unknown, instancePath: string, missing: string): string | undefined {
  const { value } = placeOf(args, instancePath);
  if (typeof value !== 'object' || value === null) return undefined;
  const keys: string[] = [];
  for (const key in value) if (keys.push(key) >= MAX_KEYS_COMPARED) break;
  return closestName(missing, keys);
}

function describe(error: ErrorObject, args: unknown, root: string): string {
  const path = pathOf(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params['missingProperty']);
      const given = misspelling(args, error.instancePath, missing);
      const hint =
        given === undefined ? '' : ` (was ${JSON.stringify(cutKey(given))} meant as ${JSON.stringify(missing)}?)`;
      return `${childPath(path, missing)}: is required${hint}`;
    }
    case 'additionalProperties':
      return `${childPath(path, String(params['additionalProperty']))}: is not an accepted argument`;
    case 'enum':
      return `${path}: must be one of ${allowedValuesText(params['allowedValues'] as unknown[])}`;
    default:
      return `${path}: ${error.message ?? 'is invalid'}`;
  }
}

/**
 * A size or depth problem with `args`, or undefined; found without recursion so hostile input
 * cannot overflow the stack. Size counts the characters of strings and keys and one for every
 * other value; an array's or object's entries are counted before they are visited, so a huge one
 * is refused at once.
 */
export function shapeProblem(args: unknown, maxChars = MAX_ARGUMENT_CHARS, root = 'args'): string | undefined {
  const tooLarge = `${root}: larger than ${maxChars} characters`;
  const pending: [unknown, number][] = [[args, 0]];
  let size = 1;
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value === 'string') size += Math.max(0, value.length - 1);
    if (typeof value !== 'object' || value === null) continue;
    // A typed array's elements would each be a key to list: JSON never holds one.
    if (ArrayBuffer.isView(value)) return `${root}: holds a ${value.constructor.name}, which is not JSON data`;
    if (depth >= MAX_ARGUMENT_DEPTH) return `${root}: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`;
    const container = value as Record<string, unknown>;
    const keys = Array.isArray(value) ? undefined : Object.keys(value);
    const count = keys === undefined ? (value as unknown[]).length : keys.length;
    size += count;
    if (keys !== undefined) for (let index = 0; index < count; index++) size += keys[index]!.length;
    if (size > maxChars) return tooLarge;
    for (let index = 0; index < count; index++) {
      const item = keys === undefined ? (value as unknown[])[index] : container[keys[index]!];
      if (typeof item === 'string') size += item.length > 0 ? item.length - 1 : 0;
      else if (typeof item === 'object' && item !== null) pending.push([item, depth + 1]);
    }
  }
  return size > maxChars ? tooLarge : undefined;
}

// Each fast validator's twin that lists every problem, compiled on first use by the closure the
// schema compiler leaves here (this module imports no ajv code: it loads beside the config's evaluation).
const listings = new WeakMap<ValidateFunction, () => ValidateFunction>();

/** Remembers how to compile the validator of `validate`'s schema that lists every problem. */
export function rememberListing(validate: ValidateFunction, listing: () => ValidateFunction): void {
  listings.set(validate, listing);
}

/** The problems `validate` finds in `args`, described (none: valid), or why the check was abandoned. */
function check(
  validate: ValidateFunction,
  args: unknown,
  root: string,
  steps?: number,
): string[] | { tooCostly: string } {
  try {
    if (withValidationBudget(() => validate(args), steps)) return [];
    return [...new Set((validate.errors ?? []).map((error) => describe(error, args, root)))];
  } catch (error) {
    if (error instanceof ValidationBudgetError) return { tooCostly: `${root}: ${error.message}` };
    throw error;
  }
}

/**
 * The problems with `args`, or an empty list when the call may go ahead. `validate` (from
 * compileParameters) stops at the first problem; a second pass lists every problem if it fits in
 * MAX_LISTING_STEPS. Paths start at `root` (a tool's `structured` result is checked the same way).
 */
export function argumentProblems(validate: ValidateFunction, args: unknown, root = 'args'): string[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return [
      `${root}: must be an object (got ${Array.isArray(args) ? 'an array' : args === null ? 'null' : typeof args})`,
    ];
  }
  const shape = shapeProblem(args, MAX_ARGUMENT_CHARS, root);
  if (shape) return [shape];
  const first = check(validate, args, root);
  if (!Array.isArray(first)) return [first.tooCostly];
  const listing = first.length === 0 ? undefined : listings.get(validate)?.();
  if (listing === undefined) return first;
  const all = check(listing, args, root, MAX_LISTING_STEPS);
  if (Array.isArray(all) && all.length > 0) return all;
  return [...first, `${root}: only the first problem is listed; checking for the others would take too long`];
}
