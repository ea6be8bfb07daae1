// Schema patterns run on RE2 (re2js, pure JavaScript): matching time is linear in the string, so
// no pattern can backtrack for hours on the host's thread. Each test is charged to the budget.
import { RE2JS } from 're2js';
import type { CodeOptions } from 'ajv';
import { chargeValidationWork } from './validation-budget.js';

/** Longest regular expression accepted in `pattern`, `patternProperties` or `propertyNames`. */
export const MAX_PATTERN_CHARS = 1000;
/** Largest compiled pattern accepted, in RE2 program instructions (`a{1,1000}` is about 1000). */
export const MAX_PATTERN_PROGRAM_SIZE = 5000;

/** Patterns for one ajv instance; each is compiled once and dropped with the instance. */
export class LinearPatterns {
  private readonly compiled = new Map<string, RE2JS>();
  /** ajv's `code.regExp`: every schema pattern compiled by an ajv that uses it runs on RE2. */
  readonly engine: NonNullable<CodeOptions['regExp']> = Object.assign(
    (pattern: string) => linearRegExp(this.compile(pattern), pattern),
    { code: 'moonpool linearRegExp' },
  );

  private compile(pattern: string): RE2JS {
    let engine = this.compiled.get(pattern);
    if (engine === undefined) {
      engine = RE2JS.compile(RE2JS.translateRegExp(pattern));
      this.compiled.set(pattern, engine);
    }
    return engine;
  }

  /** Why a pattern cannot be used, or undefined when it can. */
  problem(pattern: string): string | undefined {
    if (pattern.length > MAX_PATTERN_CHARS) return `the pattern is longer than ${MAX_PATTERN_CHARS} characters`;
    let engine: RE2JS;
    try {
      engine = this.compile(pattern);
    } catch (error) {
      return `the pattern cannot run in linear time (${(error as Error).message}); backreferences and lookaround are not supported`;
    }
    const size = engine.programSize();
    if (size > MAX_PATTERN_PROGRAM_SIZE)
      return `the pattern compiles to ${size} instructions; the limit is ${MAX_PATTERN_PROGRAM_SIZE} (lower its repeat counts)`;
    return undefined;
  }
}

function linearRegExp(engine: RE2JS, pattern: string): { test: (text: string) => boolean; toString: () => string } {
  const size = engine.programSize();
  const source = `/${pattern}/`;
  return {
    test: (text: string): boolean => {
      chargeValidationWork(
        text.length * size,
        () => `matching a ${text.length}-character string against ${source} (${size} instructions a character)`,
      );
      return engine.test(text);
    },
    // ajv keys its cache of compiled patterns by this text.
    toString: () => source,
  };
}
