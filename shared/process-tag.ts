// A task's process tag (TaskTable.tag) is the value of PROCESS_TAG_VARIABLE in the environment of
// every process the task starts (descendants inherit it), so whichever thread ends the task can
// find them even after they left the task's process groups.
export const PROCESS_TAG_VARIABLE = 'MOONPOOL_CALL_TAG';
