// Ends every process a task started, at the task's end: its process groups, then (on Linux, from
// /proc) every process whose environment carries the task's tag and every descendant of one or
// of a group leader — which finds the ones that left the task's groups or sessions. What escapes:
// a process that cleared its environment and was orphaned (its parent gone) before the sweep.
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { PROCESS_TAG_VARIABLE } from './protocol.js';

/** Sweeps until one finds nothing left (a process forking while swept is found by the next). */
const MAX_PASSES = 8;
/** Linux's USER_HZ on every architecture Node runs on; a larger one only widens the start-time filter. */
const TICKS_PER_SECOND = 100;
/** Processes started this long before the task's start are still examined (clock granularity, skew). */
const START_MARGIN_MS = 1000;

export interface SweepTarget {
  /** The task's process tag (core/process-tag.ts). */
  tag: string;
  /** The pid of each process group the task started (its leaders, alive or not). */
  groups: readonly number[];
  /** When the task started (Date.now() ms): only processes started since are examined. */
  startedMs: number;
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
}

/** SIGKILLs the task's groups and every process of the task found in /proc; returns how many signals were sent. */
export function sweepTaskProcesses(target: SweepTarget): number {
  let sent = 0;
  for (const group of target.groups) sent += signal(-group);
  const needle = Buffer.from(`${PROCESS_TAG_VARIABLE}=${target.tag}\0`);
  const groups = new Set(target.groups);
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const table = processesStartedSince(target.startedMs - START_MARGIN_MS);
    if (table === undefined) break;
    const doomed = taskProcesses(table, groups, (pid) => environmentHas(pid, needle));
    if (doomed.length === 0) break;
    for (const pid of doomed) sent += signal(pid);
  }
  return sent;
}

/** The live processes in `table` that belong to the task: tagged, in its groups, or below either. */
function taskProcesses(table: Map<number, ProcessEntry>, groups: ReadonlySet<number>, tagged: (pid: number) => boolean): number[] {
  const verdicts = new Map<number, boolean>();
  const belongs = (entry: ProcessEntry): boolean => {
    const known = verdicts.get(entry.pid);
    if (known !== undefined) return known;
    // Set before recursing, so a ppid cycle (pid reuse mid-scan) cannot loop.
    verdicts.set(entry.pid, false);
    const parent = table.get(entry.ppid);
    const verdict = groups.has(entry.pid) || groups.has(entry.pgid) || tagged(entry.pid) || (parent !== undefined && belongs(parent));
    verdicts.set(entry.pid, verdict);
    return verdict;
  };
  return [...table.values()].filter((entry) => entry.pid !== process.pid && belongs(entry)).map((entry) => entry.pid);
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
    const stat = readProcFile(pid, 'stat');
    // The command name (field 2) is in parentheses and may hold spaces or ')': fields follow the last ')'.
    const fields = stat?.toString('latin1', stat.lastIndexOf(')') + 2).split(' ');
    if (fields === undefined || fields[0] === 'Z' || fields[0] === 'X') continue;
    if (Number(fields[19]) < sinceTicks) continue;
    table.set(pid, { pid, ppid: Number(fields[1]), pgid: Number(fields[2]) });
  }
  return table;
}

/** Whether the process's environment has `needle` (`NAME=value\0`) as one whole entry. */
function environmentHas(pid: number, needle: Buffer): boolean {
  const environment = readProcFile(pid, 'environ');
  if (environment === undefined) return false;
  for (let at = environment.indexOf(needle); at >= 0; at = environment.indexOf(needle, at + 1)) {
    if (at === 0 || environment[at - 1] === 0) return true;
  }
  return false;
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
