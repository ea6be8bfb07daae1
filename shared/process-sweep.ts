// Ends every process a task started, at the task's end, where the task has no cgroup
// (call-cgroup.ts). On Linux it reads /proc: a process is the task's if its environment carries the
// task's tag, if it is in one of the task's process groups or sessions (each command starts one of
// each, numbered alike), or if it descends from any. What escapes (docs/security.md): a process
// that left the task's sessions, lost its parent and whose tag is gone, or one that forks anew
// faster than /proc is read. Without /proc, the groups alone are killed.
// A scan of /proc is no snapshot: a process that forks after the listing and is gone by the time
// it is read hides its child, and an orphan in the middle of an `execve` shows no tag yet. So a
// pass that finds nothing new ends the sweep only if its scan saw nothing of the kind (`unsettled`).
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A task's process tag (TaskTable.tag) is this variable's value in the environment of every process
 * the task starts: descendants inherit it, so they are found even after they left its groups.
 */
export const PROCESS_TAG_VARIABLE = 'MOONPOOL_CALL_TAG';

/** Passes at most: a sweep goes on until one finds nothing new and its scan saw nothing changing. */
const MAX_PASSES = 16;
/** How long a sweep waits before looking again after a scan that saw processes changing. */
const SETTLE_MS = 1;
/**
 * How long an orphan without an environment yet is looked at again, and how long between looks:
 * an `execve` on a loaded machine can take tens of milliseconds, and its tag shows only after it.
 */
const PENDING_ENVIRONMENT_MS = 100;
const PENDING_LOOK_MS = 8;
const PAUSE = new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
/** The PF_KTHREAD bit of a process's flags (field 9 of /proc/PID/stat): kernel threads are never a task's. */
const KERNEL_THREAD = 0x00200000;
/** Linux's USER_HZ on every architecture Node runs on; a larger one only widens the start-time filter. */
const TICKS_PER_SECOND = 100;
/** Processes started this long before the task are still examined (clock granularity, skew). */
const START_MARGIN_MS = 1000;

interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Its tag (null: none), read when first needed. */
  tag?: string | null;
}

/**
 * SIGKILLs every process of the task tagged `tag` that started `groups` (their leaders' pids, alive
 * or not) at `startedMs` (only processes started since can be its); returns how many signals were sent.
 */
export function sweepTaskProcesses(tag: string, groups: readonly number[], startedMs: number): number {
  const sinceMs = startedMs - START_MARGIN_MS;
  const first = processesStartedSince(sinceMs);
  if (first === undefined) return groups.reduce((sent, group) => sent + sigkill(-group), 0);
  // Groups are judged once, before any kill: a leader killed first would orphan its descendants,
  // and with them the only link to the ones that cleared their environment.
  const taskGroups = new Set(groups.filter((group) => isTaskGroup(group, first, tag)));
  const signalled = new Set<number>();
  /** Zombies and orphans without an environment this sweep has looked again for, and since when. */
  const lookedAgain = new Map<number, number>();
  let sent = 0;
  let table: ProcessTable | undefined = first;
  for (let pass = 0; pass < MAX_PASSES && table !== undefined; pass++) {
    const fresh = taskProcesses(table, taskGroups, tag).filter((pid) => !signalled.has(pid));
    if (pass === 0) for (const group of taskGroups) sent += sigkill(-group);
    if (fresh.length === 0) {
      const change = unsettled(table, groups, signalled, lookedAgain);
      if (change === 'none') break;
      pause(change === 'pending environment' ? PENDING_LOOK_MS : SETTLE_MS);
    }
    for (const pid of fresh) {
      signalled.add(pid);
      sent += sigkill(pid);
    }
    table = processesStartedSince(sinceMs);
  }
  return sent;
}

/**
 * Whether the recorded group `group` is still the task's: a pid is not reused while its group has a
 * member, so a group whose leader is gone is; a live leader must carry the tag, or no tag and be the
 * host's child (it exec'd a command clearing its environment). Anything else holds a reused pid.
 */
function isTaskGroup(group: number, table: Map<number, ProcessEntry>, tag: string): boolean {
  const leader = table.get(group);
  if (leader === undefined) {
    const fields = statFields(group);
    return fields === undefined || ended(fields);
  }
  const leaderTag = tagOf(leader);
  return leaderTag === tag || (leaderTag === null && leader.ppid === process.pid);
}

/** The live processes in `table` that are the task's: tagged, in its groups or sessions, or below any. */
function taskProcesses(table: Map<number, ProcessEntry>, groups: ReadonlySet<number>, tag: string): number[] {
  const verdicts = new Map<number, boolean>();
  const own = (entry: ProcessEntry): boolean => groups.has(entry.pgid) || groups.has(entry.sid) || tagOf(entry) === tag;
  for (const start of table.values()) {
    // Up to the first ancestor judged, the task's, or outside the table; a loop: a chain may be deep.
    const path: ProcessEntry[] = [];
    let entry: ProcessEntry | undefined = start;
    let verdict = false;
    while (entry !== undefined) {
      const known = verdicts.get(entry.pid);
      if (known !== undefined) {
        verdict = known;
        break;
      }
      // Judged false until the walk ends, so a ppid cycle (pid reuse mid-scan) cannot loop.
      verdicts.set(entry.pid, false);
      path.push(entry);
      if (own(entry)) {
        verdict = true;
        break;
      }
      entry = table.get(entry.ppid);
    }
    for (const below of path) verdicts.set(below.pid, verdict);
  }
  return [...table.values()]
    .filter((entry) => entry.pid !== process.pid && verdicts.get(entry.pid))
    .map((entry) => entry.pid);
}

/** Live processes by pid, and what the scan that listed them saw change while it ran. */
class ProcessTable extends Map<number, ProcessEntry> {
  /** A listed pid was gone by the time its stat was read. */
  sawVanish = false;
  readonly zombies: number[] = [];
}

/**
 * What a scan that found nothing new may have missed: a listed pid gone when read, a new zombie
 * (it may have forked after the listing), or a new orphan with no environment yet (in an
 * `execve`). Each zombie and orphan gets one more look, and one still in its `execve` (no command
 * line yet) a look every PENDING_LOOK_MS for up to PENDING_ENVIRONMENT_MS (`lookedAgain`), so
 * that one that stays so (`env -i`, an unreaped zombie) does not make every sweep take all its
 * passes. The recorded leaders and what this sweep killed fork no more.
 */
function unsettled(
  table: ProcessTable,
  leaders: readonly number[],
  signalled: ReadonlySet<number>,
  lookedAgain: Map<number, number>,
): 'none' | 'changing' | 'pending environment' {
  let change: 'none' | 'changing' | 'pending environment' = table.sawVanish ? 'changing' : 'none';
  const now = Date.now();
  for (const pid of table.zombies) {
    if (leaders.includes(pid) || signalled.has(pid) || lookedAgain.has(pid)) continue;
    lookedAgain.set(pid, now);
    change = 'changing';
  }
  for (const entry of table.values()) {
    // Only processes whose tag was read and found missing; a parent in the table links the rest.
    if (entry.tag !== null || table.has(entry.ppid) || !environmentPending(entry.pid)) continue;
    const since = lookedAgain.get(entry.pid);
    // In its `execve`, the new program's arguments are not in place yet; an `env -i` command has some.
    const execing = (readIfThere(`/proc/${entry.pid}/cmdline`)?.length ?? 0) === 0;
    if (since !== undefined && (!execing || now - since >= PENDING_ENVIRONMENT_MS)) continue;
    if (since === undefined) lookedAgain.set(entry.pid, now);
    if (change === 'none') change = 'changing';
    if (execing) change = 'pending environment';
  }
  return change;
}

/** Whether the process's environment reads as empty or unreadable (not for being another user's): as in an `execve`. */
function environmentPending(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`).length === 0;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'EACCES' && code !== 'EPERM';
  }
}

/** Processes started at or after `sinceMs` (live ones by pid, see ProcessTable); undefined without /proc. */
function processesStartedSince(sinceMs: number): ProcessTable | undefined {
  let names: string[];
  let nowTicks: number;
  try {
    names = readdirSync('/proc');
    nowTicks = Number.parseFloat(readFileSync('/proc/uptime', 'latin1')) * TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
  const sinceTicks = nowTicks - ((Date.now() - sinceMs) / 1000) * TICKS_PER_SECOND;
  const table = new ProcessTable();
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    const fields = statFields(pid);
    if (fields === undefined) {
      table.sawVanish = true;
      continue;
    }
    // Field 22, the start time; field 9, the flags.
    if (Number(fields[19]) < sinceTicks || (Number(fields[6]) & KERNEL_THREAD) !== 0) continue;
    if (ended(fields)) table.zombies.push(pid);
    else table.set(pid, { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]) });
  }
  return table;
}

/** Fields 3 on of /proc/PID/stat (the state first); undefined for a process that is gone. */
export function statFields(pid: number): string[] | undefined {
  const stat = readIfThere(`/proc/${pid}/stat`);
  // The command name (field 2) is in parentheses and may hold spaces or ')': fields follow the last ')'.
  return stat?.toString('latin1', stat.lastIndexOf(')') + 2).split(' ');
}

/** A zombie's or a dead process's state. */
function ended(fields: readonly string[]): boolean {
  return fields[0] === 'Z' || fields[0] === 'X';
}

const TAG_ENTRY = Buffer.from(`${PROCESS_TAG_VARIABLE}=`);

/** The process's tag: the value of PROCESS_TAG_VARIABLE in its environment, or null. */
function tagOf(entry: ProcessEntry): string | null {
  if (entry.tag !== undefined) return entry.tag;
  entry.tag = null;
  const environment = readIfThere(`/proc/${entry.pid}/environ`);
  if (environment === undefined) return null;
  // Entries are NUL-terminated `NAME=value`: the variable starts the block or follows a NUL.
  for (let at = environment.indexOf(TAG_ENTRY); at >= 0; at = environment.indexOf(TAG_ENTRY, at + 1)) {
    if (at > 0 && environment[at - 1] !== 0) continue;
    const end = environment.indexOf(0, at);
    entry.tag = environment.toString('latin1', at + TAG_ENTRY.length, end < 0 ? environment.length : end);
    break;
  }
  return entry.tag;
}

/** A file's bytes, or undefined if it is unreadable or gone (a /proc or cgroup file, often). */
export function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Whether process `pid` (a group when negative) exists, ours to signal or not (EPERM). */
export function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** SIGKILLs `pid` (a group when negative); 1 if the signal was sent, 0 if it is gone already. */
export function sigkill(pid: number): number {
  try {
    process.kill(pid, 'SIGKILL');
    return 1;
  } catch {
    return 0;
  }
}

/** Blocks the thread for `ms`. */
export function pause(ms: number): void {
  Atomics.wait(PAUSE, 0, 0, ms);
}
