// A task's process tag: the value of PROCESS_TAG_VARIABLE in the environment of every process the
// task starts (descendants inherit it), so the core can find them at the task's end even after
// they left the task's process groups. No imports: the core and the workers both use it.

/** The tag of the task in `row` of the pool whose table was made at `epochMs`, drawn `word`. */
export function processTag(epochMs: number, row: number, word: number): string {
  return `${process.pid}.${epochMs}.${row}.${word >>> 0}`;
}
