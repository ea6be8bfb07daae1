// The work one argument check may do on the host's thread. Pattern and format checks charge
// their cost before they run; past the budget the check is abandoned with ValidationBudgetError.

/**
 * Work units one call's argument check may spend on patterns and formats. A pattern check costs
 * the string's length times the pattern's compiled size; a format check costs the string's length.
 * At the slowest rate measured (about 130 ns a unit, a pattern whose automaton keeps being
 * rebuilt) this is about 25 ms of the host's thread.
 */
export const MAX_VALIDATION_WORK_UNITS = 200_000;

/**
 * Applications of a subschema to a value one check may make (an array of 50,000 items checked
 * against `items` is 50,000). A visit costs about 10 ns on a passing value and up to about
 * 1.2 µs where every visit fails and records an error (recursive `oneOf`): at most about 60 ms.
 */
export const MAX_VALIDATION_STEPS = 50_000;

export class ValidationBudgetError extends Error {
  override readonly name = 'ValidationBudgetError';
}

let remaining: number | undefined;
let stepsLeft = Infinity;

/** Runs `check` with a fresh budget of work units and `steps`; nested checks share the outer one. */
export function withValidationBudget<T>(check: () => T, steps = MAX_VALIDATION_STEPS): T {
  if (remaining !== undefined) return check();
  remaining = MAX_VALIDATION_WORK_UNITS;
  stepsLeft = steps;
  try {
    return check();
  } finally {
    remaining = undefined;
    stepsLeft = Infinity;
  }
}

/** Counts one application of a subschema to a value; throws past the check's steps. Free outside a check. */
export function countValidationStep(): void {
  if (--stepsLeft < 0) {
    stepsLeft = 0;
    throw new ValidationBudgetError(
      `applying the schema to these arguments would take more steps than one call's check may take (${MAX_VALIDATION_STEPS}); send smaller arguments`,
    );
  }
}

/** Spends `units` on `what` ("matching …"), or throws when the check cannot afford them. Free outside a check. */
export function chargeValidationWork(units: number, what: () => string): void {
  if (remaining === undefined) return;
  if (units > remaining) {
    remaining = 0;
    throw new ValidationBudgetError(
      `${what()} would take more work than one call's check may spend (${MAX_VALIDATION_WORK_UNITS} units); send smaller arguments`,
    );
  }
  remaining -= units;
}
