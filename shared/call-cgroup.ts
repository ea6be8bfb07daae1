// A cgroup (v2) per task that starts a process, where the host can make and join one: each of the
// task's shells joins it before running anything, and the task's end kills the whole cgroup
// (cgroup.kill; before Linux 5.14, freeze, kill each process, thaw). Where no cgroup is usable, the
// sweep (process-sweep.ts) ends a task's processes instead.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { exists, pause, readIfThere, sigkill } from './process-sweep.js';

/** Names the directory under which the host makes its tasks' cgroups, or `off` for none. */
const CGROUP_VARIABLE = 'MOONPOOL_CGROUP';
/** Every cgroup the host makes is named `moonpool-PID.…`, PID the host's. */
const PREFIX = 'moonpool-';
/** How long a worker's thread, ending a cgroup, waits for its processes to exit before it lets a timer go on. */
const EXIT_WAIT_MS = 1000;
/**
 * How long a timer keeps trying to remove a killed cgroup whose processes are still exiting (slow on
 * a loaded machine); one still there then is left for the next host to remove.
 */
const REMOVAL_TRIES_MS = 30_000;
/** The longest pause between two tries. */
const MAX_REMOVAL_PAUSE_MS = 1000;
/** How long killing by freezing waits for the cgroup to say it is frozen; past it, its processes are killed anyway. */
const FREEZE_WAIT_MS = 1000;

let candidate: string | null | undefined;
let parent: string | null | undefined;

/** Where this process would make its tasks' cgroups, untested: MOONPOOL_CGROUP, else the host's own cgroup; null for `off` or none. Read once per thread. */
function cgroupCandidate(): string | null {
  if (candidate !== undefined) return candidate;
  const chosen = process.env[CGROUP_VARIABLE];
  candidate = chosen === 'off' ? null : chosen || ownCgroup();
  return candidate;
}

/**
 * The directory under which this thread makes its tasks' cgroups, or null: the candidate, if a
 * cgroup made there can be joined and killed. Decided once per thread, when its first task starts
 * a process; stale cgroups of hosts no longer alive are ended then.
 */
function cgroupParent(): string | null {
  if (parent !== undefined) return parent;
  const chosen = process.env[CGROUP_VARIABLE];
  const dir = cgroupCandidate();
  const problem = dir === null ? undefined : joinProblem(dir);
  if (chosen && chosen !== 'off' && problem !== undefined) {
    process.emitWarning(
      `${CGROUP_VARIABLE}=${chosen}: cannot make and join a cgroup there (${problem}); a call's processes are ended by the /proc sweep`,
    );
  }
  parent = problem === undefined ? dir : null;
  if (parent !== null) endStaleCgroups(parent);
  return parent;
}

/** The cgroup of the task tagged `tag`: under the candidate (the side that made it tested it). */
export function taskCgroup(tag: string): string {
  return `${cgroupCandidate()}/${PREFIX}${tag}`;
}

/** Makes the cgroup of the task tagged `tag`; null where this thread can use none or it cannot be made. */
export function makeTaskCgroup(tag: string): string | null {
  if (cgroupParent() === null) return null;
  const dir = taskCgroup(tag);
  try {
    mkdirSync(dir);
    return dir;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? dir : null;
  }
}

/**
 * Kills every process in the cgroup `dir` and below, then removes it with the cgroups a process made
 * below it once they have exited: `wait` blocks the thread up to EXIT_WAIT_MS meanwhile (a worker's,
 * whose next task must not start beside them); after that, or at once on the host's thread (which
 * never waits for a process to exit), the removal is tried again on a timer, less and less often.
 */
export function endCgroup(dir: string, wait: boolean): void {
  if (!killCgroup(dir)) return;
  const deadline = Date.now() + EXIT_WAIT_MS;
  while (wait && events(dir).includes('populated 1') && Date.now() < deadline) pause(1);
  // Removed now if its processes have exited, else from the timer.
  removeLater(dir, Date.now() + REMOVAL_TRIES_MS, 10);
}

/** Tries to remove the killed cgroup `dir` now, and again after `pauseMs` (doubling) until `deadline`. */
function removeLater(dir: string, deadline: number, pauseMs: number): void {
  if (removeTree(dir) || !killCgroup(dir) || Date.now() >= deadline) return;
  const next = Math.min(2 * pauseMs, MAX_REMOVAL_PAUSE_MS);
  setTimeout(() => removeLater(dir, deadline, next), pauseMs).unref();
}

/** Kills every process in the cgroup `dir` and below: cgroup.kill where the kernel has it; false once `dir` is gone. */
function killCgroup(dir: string): boolean {
  try {
    if (existsSync(`${dir}/cgroup.kill`)) writeFileSync(`${dir}/cgroup.kill`, '1');
    else freezeKillThaw(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * What cgroup.kill does, for Linux 5.2 to 5.13: freezes `dir` (no process in it can fork while they
 * are listed), SIGKILLs each, and thaws it so that they exit. Throws when `dir` cannot be frozen.
 */
export function freezeKillThaw(dir: string): void {
  writeFileSync(`${dir}/cgroup.freeze`, '1');
  try {
    const deadline = Date.now() + FREEZE_WAIT_MS;
    while (!events(dir).includes('frozen 1') && Date.now() < deadline) pause(1);
    for (const pid of processesUnder(dir)) sigkill(pid);
  } finally {
    try {
      writeFileSync(`${dir}/cgroup.freeze`, '0');
    } catch {
      // Removed meanwhile: nothing is left to thaw.
    }
  }
}

/** The pids in the cgroup `dir` and the cgroups below it. */
function processesUnder(dir: string): number[] {
  // Empty once removed.
  const pids = (readIfThere(`${dir}/cgroup.procs`)?.toString('latin1') ?? '').split('\n').filter(Boolean).map(Number);
  for (const name of subdirectories(dir)) pids.push(...processesUnder(`${dir}/${name}`));
  return pids;
}

/** The cgroup v2 directory of this process, or null where there is none (no cgroup v2 mounted). */
function ownCgroup(): string | null {
  try {
    const path = /^0::(\/.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    // mountinfo: ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL…] - FSTYPE SOURCE SUPEROPTIONS
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[fields.indexOf('-') + 1] === 'cgroup2' && fields[3] === '/');
    if (path !== undefined && mount !== undefined) return `${mount[4]}${path}`.replace(/\/$/, '');
  } catch {
    // No /proc: not Linux.
  }
  return null;
}

/** Why a cgroup made under `dir` cannot hold this process's commands, or undefined if it can: one is made, joined by a shell, and killed. */
function joinProblem(dir: string): string | undefined {
  const probe = `${dir}/${PREFIX}${process.pid}.probe-${threadId}`;
  try {
    mkdirSync(probe);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
  try {
    if (!existsSync(`${probe}/cgroup.kill`) && !existsSync(`${probe}/cgroup.freeze`))
      return 'neither cgroup.kill nor cgroup.freeze: Linux 5.2 or later is needed';
    const joined = spawnSync('/bin/sh', ['-c', 'echo $$ > "$1"', 'sh', `${probe}/cgroup.procs`], { encoding: 'utf8' });
    return joined.status === 0
      ? undefined
      : `a process cannot join it: ${joined.stderr.trim() || joined.error?.message}`;
  } finally {
    endCgroup(probe, true);
  }
}

/** Ends the cgroups under `parentDir` made by hosts that are no longer running. */
function endStaleCgroups(parentDir: string): void {
  for (const name of subdirectories(parentDir)) {
    const pid = Number(/^moonpool-(\d+)\./.exec(name)?.[1]);
    if (pid && pid !== process.pid && !exists(pid)) endCgroup(`${parentDir}/${name}`, true);
  }
}

/** The cgroup's `cgroup.events` (`populated 0|1`, `frozen 0|1`), empty once it is gone. */
function events(dir: string): string {
  return readIfThere(`${dir}/cgroup.events`)?.toString('latin1') ?? '';
}

/** Removes `dir` and the cgroups below it, deepest first; false if one is still in use. */
function removeTree(dir: string): boolean {
  for (const name of subdirectories(dir)) if (!removeTree(`${dir}/${name}`)) return false;
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}
