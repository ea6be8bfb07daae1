// Each fast validator's twin that lists every problem of an argument, compiled the first time a
// call fails (see arguments.ts). Kept apart from schema-compiler.ts so that checking arguments
// does not import ajv's modules: they load beside the config's evaluation (see generation.ts).
import type { Ajv, ValidateFunction } from 'ajv';

const listingSources = new WeakMap<ValidateFunction, { ajv: Ajv; schema: object }>();
const listingValidators = new WeakMap<ValidateFunction, ValidateFunction>();

/** Remembers that `ajv` (which lists every problem) compiles `schema` into `validate`'s twin. */
export function rememberListingSource(validate: ValidateFunction, ajv: Ajv, schema: object): void {
  listingSources.set(validate, { ajv, schema });
}

/** The validator of the same schema that lists every problem, compiled on first use; undefined if `validate` already does. */
export function listingValidator(validate: ValidateFunction): ValidateFunction | undefined {
  const compiled = listingValidators.get(validate);
  if (compiled) return compiled;
  const source = listingSources.get(validate);
  if (!source) return undefined;
  const listing = source.ajv.compile(source.schema);
  listingValidators.set(validate, listing);
  return listing;
}
