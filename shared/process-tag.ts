// A task's process tag: the value of PROCESS_TAG_VARIABLE in the environment of every process the
// task starts (descendants inherit it), so whichever thread ends the task can find them even after
// they left the task's process groups.

/** The environment variable every process a task starts is given; its value is the task's process tag. */
export const PROCESS_TAG_VARIABLE = 'MOONPOOL_CALL_TAG';

/** The tag of the task in `row` of the pool whose table was made at `epochMs`, drawn `word`. */
export function processTag(epochMs: number, row: number, word: number): string {
  return `${process.pid}.${epochMs}.${row}.${word >>> 0}`;
}
