// `enum` and `uniqueItems` by hashing instead of ajv's pairwise deep comparison, which is
// quadratic: checking a 20,000-value enum against the meta-schema took seconds, and so would
// `uniqueItems` on a long array of arguments. Values compare as JSON, object keys in any order.
import { _, str, type Ajv, type CodeKeywordDefinition, type KeywordCxt } from 'ajv';
import { chargeValidationWork } from './validation-budget.js';

/** A value's JSON with object keys sorted, or undefined once longer than `limit` characters. */
function canonicalJson(value: unknown, limit = Infinity): string | undefined {
  let text = '';
  const write = (item: unknown): boolean => {
    if (typeof item !== 'object' || item === null) text += JSON.stringify(item) ?? 'null';
    else {
      const list = Array.isArray(item);
      text += list ? '[' : '{';
      let separator = '';
      for (const key of list ? item.keys() : Object.keys(item).sort()) {
        text += list ? separator : `${separator}${JSON.stringify(key)}:`;
        separator = ',';
        if (!write((item as Record<string, unknown>)[key])) return false;
      }
      text += list ? ']' : '}';
    }
    return text.length <= limit;
  };
  return write(value) ? text : undefined;
}

// Strings, numbers and the three constants are looked up as themselves; arrays and objects by
// their canonical JSON, which for a value longer than every known one is never computed whole.
class ValueIndex {
  private readonly plain = new Map<unknown, number>();
  private readonly structured = new Map<string, number>();
  private longestStructured = 0;

  /** The index `value` was first added with; adds it with `index` when new. */
  add(value: unknown, index: number): number {
    if (typeof value !== 'object' || value === null) {
      if (!this.plain.has(value)) this.plain.set(value, index);
      return this.plain.get(value)!;
    }
    const key = canonicalJson(value)!;
    chargeValidationWork(key.length, () => 'comparing these arrays and objects by their content');
    if (!this.structured.has(key)) this.structured.set(key, index);
    this.longestStructured = Math.max(this.longestStructured, key.length);
    return this.structured.get(key)!;
  }

  has(value: unknown): boolean {
    chargeValidationWork(1, () => 'comparing values with their enum');
    if (typeof value !== 'object' || value === null) return this.plain.has(value);
    if (this.structured.size === 0) return false;
    const key = canonicalJson(value, this.longestStructured);
    chargeValidationWork(key?.length ?? this.longestStructured, () => 'comparing a value with its enum');
    return key !== undefined && this.structured.has(key);
  }
}

/** The first pair of equal items of `items` as [later, earlier] indexes, or undefined. */
function findDuplicate(items: unknown[]): [number, number] | undefined {
  // Two units an item: a Map insert costs about twice a unit's time (measured 150-300 ns).
  chargeValidationWork(2 * items.length, () => `looking for duplicates among ${items.length} items`);
  const seen = new ValueIndex();
  for (let index = 0; index < items.length; index++) {
    const first = seen.add(items[index], index);
    if (first !== index) return [index, first];
  }
  return undefined;
}

// Code keywords, as ajv's own: their failures join the error list in constant time (a keyword
// that returns its errors has them concatenated, quadratic over a long failing array).
const hashedEnum: CodeKeywordDefinition = {
  keyword: 'enum',
  schemaType: 'array',
  error: {
    message: 'must be equal to one of the allowed values',
    params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}`,
  },
  code(cxt: KeywordCxt) {
    const values = new ValueIndex();
    (cxt.schema as unknown[]).forEach((value, index) => values.add(value, index));
    const index = cxt.gen.scopeValue('obj', { ref: values });
    cxt.fail(_`!${index}.has(${cxt.data})`);
  },
};

const hashedUniqueItems: CodeKeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    if (cxt.schema !== true) return;
    const find = cxt.gen.scopeValue('func', { ref: findDuplicate });
    const duplicate = cxt.gen.const('duplicate', _`${find}(${cxt.data})`);
    cxt.setParams({ i: _`${duplicate}[0]`, j: _`${duplicate}[1]` });
    cxt.fail(_`${duplicate} !== undefined`);
  },
};

/** Replaces ajv's `enum` and `uniqueItems`; call before the first schema is compiled. */
export function useHashedKeywords(ajv: Ajv): void {
  ajv.removeKeyword('enum');
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(hashedEnum);
  ajv.addKeyword(hashedUniqueItems);
}
