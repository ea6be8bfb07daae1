// Counts every application of a subschema to a value while arguments are checked, so no schema
// can make a check superlinear: `oneOf` branches that each recurse into the same data take time
// exponential in its depth (18 levels took 68 s), and a wide `anyOf` over a long array multiplies.
// The compiled copy of each schema carries a keyword that counts; the model sees the original.
import { _, type Ajv, type CodeKeywordDefinition } from 'ajv';
import { isSchemaObject, mapSubschemas } from './schema-shape.js';
import { countValidationStep } from './validation-budget.js';

const STEP_KEYWORD = 'moonpoolStep';

const stepKeyword: CodeKeywordDefinition = {
  keyword: STEP_KEYWORD,
  schemaType: 'boolean',
  code(cxt) {
    const count = cxt.gen.scopeValue('func', { ref: countValidationStep });
    cxt.gen.code(_`${count}()`);
  },
};

/** Defines the counting keyword; call before the first schema is compiled. */
export function useStepCounting(ajv: Ajv): void {
  ajv.addKeyword(stepKeyword);
}

/** A copy of `schema` with the counting keyword in every subschema (`true`/`false` stay as they are). */
export function withStepCounting(schema: unknown): unknown {
  if (!isSchemaObject(schema)) return schema;
  const copy: Record<string, unknown> = { [STEP_KEYWORD]: true };
  for (const [key, value] of Object.entries(schema)) copy[key] = mapSubschemas(key, value, withStepCounting);
  return copy;
}
