// Ends every process a task started, at the task's end. On Linux it reads /proc: a process is the
// task's if its environment carries the task's tag, if it is in one of the task's process groups,
// or if it descends from either — which finds the ones that left the task's groups or sessions.
// What escapes: a process that cleared its environment, left the groups and lost its parent
// before the sweep. Without /proc, the groups alone are killed.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { PROCESS_TAG_VARIABLE } from './process-tag.js';

/** Sweeps until one finds nothing new (a process forking while swept is found by the next). */
const MAX_PASSES = 8;
/** Linux's USER_HZ on every architecture Node runs on; a larger one only widens the start-time filter. */
const TICKS_PER_SECOND = 100;
/** Processes started this long before the task's start are still examined (clock granularity, skew). */
const START_MARGIN_MS = 1000;

export interface SweepTarget {
  /** The task's process tag (process-tag.ts). */
  tag: string;
  /** The pid of each process group the task started (its leaders, alive or not). */
  groups: readonly number[];
  /** When the task started (Date.now() ms): only processes started since can be the task's. */
  startedMs: number;
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  /** The value of PROCESS_TAG_VARIABLE in its environment (null: not set), read when first needed. */
  tag?: string | null;
}

/** SIGKILLs every process of the task; returns how many signals were sent. */
export function sweepTaskProcesses(target: SweepTarget): number {
  const sinceMs = target.startedMs - START_MARGIN_MS;
  const first = processesStartedSince(sinceMs);
  if (first === undefined) return target.groups.reduce((sent, group) => sent + signal(-group), 0);
  // Groups are judged once, before any kill: a leader killed first would orphan its descendants,
  // and with them the only link to the ones that cleared their environment.
  const groups = new Set(target.groups.filter((group) => isTaskGroup(group, first, target.tag)));
  const signalled = new Set<number>();
  let sent = 0;
  let table: Map<number, ProcessEntry> | undefined = first;
  for (let pass = 0; pass < MAX_PASSES && table !== undefined; pass++) {
    const fresh = taskProcesses(table, groups, target.tag).filter((pid) => !signalled.has(pid));
    if (pass === 0) for (const group of groups) sent += signal(-group);
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      signalled.add(pid);
      sent += signal(pid);
    }
    table = processesStartedSince(sinceMs);
  }
  return sent;
}

/**
 * Whether the recorded group `group` is still the task's. A pid is not reused while a group of
 * that number has a member, so a group whose leader is gone (or a zombie) can only be the task's.
 * A live process with the leader's pid is the task's leader if it carries the tag, or carries no
 * tag and is the host's child (a leader that exec'd a command clearing its environment); anything
 * else holds a reused pid, and its group is left alone.
 */
function isTaskGroup(group: number, table: Map<number, ProcessEntry>, tag: string): boolean {
  const leader = table.get(group);
  if (leader === undefined) return !isAlive(group);
  const leaderTag = tagOf(leader);
  return leaderTag === tag || (leaderTag === null && leader.ppid === process.pid);
}

/** The live processes in `table` that belong to the task: tagged, in its groups, or below either. */
function taskProcesses(table: Map<number, ProcessEntry>, groups: ReadonlySet<number>, tag: string): number[] {
  const verdicts = new Map<number, boolean>();
  const own = (entry: ProcessEntry): boolean => groups.has(entry.pgid) || tagOf(entry) === tag;
  for (const start of table.values()) {
    // Walks up to the first ancestor already judged, one of the task's, or outside the table;
    // a loop, not recursion, since a hostile command can build a chain of any depth.
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
  return [...table.values()].filter((entry) => entry.pid !== process.pid && verdicts.get(entry.pid)).map((entry) => entry.pid);
}

/** Live (non-zombie) processes started at or after `sinceMs`, by pid; undefined without /proc. */
function processesStartedSince(sinceMs: number): Map<number, ProcessEntry> | undefined {
  let names: string[];
  let nowTicks: number;
  try {
    names = readdirSync('/proc');
    nowTicks = Number.parseFloat(readFileSync('/proc/uptime', 'latin1')) * TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
  const sinceTicks = nowTicks - ((Date.now() - sinceMs) / 1000) * TICKS_PER_SECOND;
  const table = new Map<number, ProcessEntry>();
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    const fields = statFields(pid);
    if (fields === undefined || Number(fields[19]) < sinceTicks) continue;
    table.set(pid, { pid, ppid: Number(fields[1]), pgid: Number(fields[2]) });
  }
  return table;
}

/** Fields 3 on of /proc/PID/stat (state first) for a live process; undefined for a zombie or a gone one. */
function statFields(pid: number): string[] | undefined {
  const stat = readProcFile(pid, 'stat');
  // The command name (field 2) is in parentheses and may hold spaces or ')': fields follow the last ')'.
  const fields = stat?.toString('latin1', stat.lastIndexOf(')') + 2).split(' ');
  if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') return undefined;
  return fields;
}

function isAlive(pid: number): boolean {
  return statFields(pid) !== undefined;
}

const TAG_ENTRY = Buffer.from(`${PROCESS_TAG_VARIABLE}=`);

/** The process's tag: the value of PROCESS_TAG_VARIABLE in its environment, or null. */
function tagOf(entry: ProcessEntry): string | null {
  if (entry.tag !== undefined) return entry.tag;
  entry.tag = null;
  const environment = readProcFile(entry.pid, 'environ');
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

const readBuffer = Buffer.alloc(64 * 1024);

/** A /proc file's bytes (read whole: /proc files report size 0), or undefined if unreadable or gone. */
function readProcFile(pid: number, file: 'stat' | 'environ'): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/${pid}/${file}`, 'r');
  } catch {
    return undefined;
  }
  try {
    const chunks: Buffer[] = [];
    for (;;) {
      const count = readSync(fd, readBuffer, 0, readBuffer.length, null);
      if (count === 0) break;
      chunks.push(Buffer.from(readBuffer.subarray(0, count)));
    }
    return Buffer.concat(chunks);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function signal(pid: number): number {
  try {
    process.kill(pid, 'SIGKILL');
    return 1;
  } catch {
    return 0;
  }
}
