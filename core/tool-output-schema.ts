// Checks `output_schema` of `registry:add`: a JSON Schema with `type = 'object'` describing the
// `structured` table `run` returns (MCP's outputSchema). It is compiled like `parameters`, under
// the same limits, and its keywords count toward the config's total.
import type { Ajv, ValidateFunction } from 'ajv';
import { schemaFromLua } from './lua-schema.js';
import {
  compileParameters,
  MAX_SCHEMA_KEYWORDS,
  MAX_TOTAL_SCHEMA_KEYWORDS,
  schemaKeywordCount,
} from './schema-compiler.js';
import type { ParametersSchema } from './tool-definitions.js';

export interface OutputSchemaCheck {
  schema?: ParametersSchema;
  validate?: ValidateFunction;
  /** Keywords compiled (0 when nothing was). */
  keywords: number;
  problems: string[];
}

/** Reads the raw `output_schema` (null or undefined when absent); compiles it if `keywordsLeft` allows. */
export function checkOutputSchema(ajv: Ajv, value: unknown, keywordsLeft: number): OutputSchemaCheck {
  if (value === null || value === undefined) return { keywords: 0, problems: [] };
  const schema = schemaFromLua(value);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { keywords: 0, problems: [`\`output_schema\` must be a JSON Schema table (got a ${typeof schema})`] };
  }
  const type = (schema as Record<string, unknown>)['type'];
  if (type !== 'object')
    return { keywords: 0, problems: [`output_schema.type must be 'object' (got ${JSON.stringify(type) ?? 'nil'})`] };
  const keywords = schemaKeywordCount(schema);
  // Past the one-tool limit it is refused for that (by compileParameters, without compiling).
  if (keywords > keywordsLeft && keywords <= MAX_SCHEMA_KEYWORDS) {
    return {
      keywords: 0,
      problems: [
        `the config's schemas have more than ${MAX_TOTAL_SCHEMA_KEYWORDS} keywords together; this tool's output_schema is not compiled`,
      ],
    };
  }
  const compiled = compileParameters(ajv, schema as Record<string, unknown>, 'output_schema');
  if ('problems' in compiled) {
    const counted = keywords > MAX_SCHEMA_KEYWORDS ? 0 : keywords;
    const more = compiled.total - compiled.problems.length;
    return {
      keywords: counted,
      problems: [
        ...compiled.problems.map((problem) => problem.message),
        ...(more > 0 ? [`output_schema: … and ${more} more problems`] : []),
      ],
    };
  }
  return { schema: schema as ParametersSchema, validate: compiled.validate, keywords, problems: [] };
}
