// The work one argument check may do on the host's thread. Pattern and format checks charge
// their cost before they run; past the budget the check is abandoned with ValidationBudgetError.

/**
 * Work units one call's argument check may spend on patterns and formats. A pattern check costs
 * the string's length times the pattern's compiled size; a format check costs the string's length.
 * At the slowest rate measured (about 130 ns a unit, a pattern whose automaton keeps being
 * rebuilt) this is about 25 ms of the host's thread.
 */
export const MAX_VALIDATION_WORK_UNITS = 200_000;

export class ValidationBudgetError extends Error {
  override readonly name = 'ValidationBudgetError';
}

let remaining: number | undefined;

/** Runs `check` with a fresh budget; nested checks share the outer one. */
export function withValidationBudget<T>(check: () => T): T {
  if (remaining !== undefined) return check();
  remaining = MAX_VALIDATION_WORK_UNITS;
  try {
    return check();
  } finally {
    remaining = undefined;
  }
}

/** Spends `units` on `what` ("matching …"), or throws when the check cannot afford them. Free outside a check. */
export function chargeValidationWork(units: number, what: () => string): void {
  if (remaining === undefined) return;
  if (units > remaining) {
    remaining = 0;
    throw new ValidationBudgetError(`${what()} would take more work than one call's check may spend (${MAX_VALIDATION_WORK_UNITS} units); send smaller arguments`);
  }
  remaining -= units;
}
