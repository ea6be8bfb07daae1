// A zero for number fields that will hold fractions (times, durations): V8 gives a field that
// starts as a small integer an integer slot, and the first fraction stored in it changes the shape
// of its object, throwing away the optimized code of every function that touched such objects.
// For the worker pool that happened at the first burst of calls, the moment its code matters most
// (see docs/decisions.md, "Fields that will hold fractions start as one").

/** Zero, stored as a fraction-capable number (-0 is not a small integer to V8); equal to 0 in every comparison and sum. */
export const DOUBLE_ZERO = -0;
