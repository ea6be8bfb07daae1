// What a session is on disk: under `<stateDir>/sessions/`, the regular files FILE_NAME names; under
// `<stateDir>/spill/`, its directory `<id>/`, made before its first call. Nothing else in the state
// dir belongs to a session, so nothing else is ever listed or removed. Scanning never throws and
// never creates; each session's summary (`moonpool sessions`) is built on the scan, damage a note.
import { accessSync, constants, lstatSync, readdirSync, type Stats } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { SESSION_ID_PATTERN } from './host-options.js';
import { makeDirectory } from './make-directory.js';
import { exists } from '../shared/process-sweep.js';
import { lockFileHolder } from './session-lock.js';
import { outlineSessionLog } from './session-stream.js';

/**
 * A session's file under `sessions/`: its log `<id>.log`, an older segment `<id>.<n>.log` (n from 1, zero-padded so
 * names sort in order), a slot of its lock `<id>.log.lock[.1-7]`, or a second writer's log `<id>.<pid>-<hex>.log`.
 */
const FILE_NAME = new RegExp(
  `^(?<id>${SESSION_ID_PATTERN.source.slice(1, -1)})\\.(?:log|(?<segment>\\d+)\\.log|(?<lock>log\\.lock(?:\\.[1-7])?)|(?<writer>\\d+)-[0-9a-f]+\\.log)$`,
);
const fileName = (path: string): Record<string, string | undefined> | undefined =>
  FILE_NAME.exec(basename(path))?.groups;

/** A new session id: the UTC start time and a random suffix, e.g. `20261130-105400-3fa9c1`. */
export function newSessionId(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/**
 * Why moonpool cannot keep sessions and spill files in `stateDir` (it is a file, or cannot be
 * created or written), or undefined when it can. Creates its directories.
 */
export function stateDirProblem(stateDir: string): string | undefined {
  try {
    for (const dir of [join(stateDir, 'sessions'), join(stateDir, 'spill')]) {
      makeDirectory(dir, 0o700);
      accessSync(dir, constants.W_OK | constants.X_OK);
    }
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'EEXIST' || code === 'ENOTDIR' ? 'a file is in the way' : (code ?? (error as Error).message);
    return `the state directory ${stateDir} cannot be used (${why}); pass --state-dir or set $XDG_STATE_HOME`;
  }
}

export function sessionLogPath(stateDir: string, sessionId: string): string {
  return join(stateDir, 'sessions', `${sessionId}.log`);
}

export interface SessionFiles {
  id: string;
  /** Its files under `sessions/`, absolute paths: the log, writers' logs and the lock. */
  files: string[];
  /** Its spill directory, when it has one. */
  spillDir?: string;
  /** Bytes on disk: its files and everything under its spill directory. */
  bytes: number;
  /** The latest modification time among its files and spill directory (ms since the epoch). */
  lastWriteMs: number;
  /** The pid of a live process writing it (holding its lock, or writing a log beside it). */
  inUseBy?: number;
}

/** The pid of a live process writing one of these session files: the lock's holder or a writer named in a log's name. */
export function liveWriter(files: string[]): number | undefined {
  for (const path of files) {
    const name = fileName(path);
    const holder = name?.lock !== undefined ? lockFileHolder(path) : undefined;
    if (holder !== undefined) return holder;
    const writer = Number(name?.writer);
    // Pid 0 would ask about this process's group, not a writer.
    if (Number.isSafeInteger(writer) && writer > 0 && exists(writer)) return writer;
  }
  return undefined;
}

type Segment = { path: string; number: number };

/** A session's older log segments, oldest first, and its second writers' logs, among `paths` (names or paths). */
export function sessionLogs(paths: string[], sessionId: string): { segments: Segment[]; writers: string[] } {
  const logs = { segments: [] as Segment[], writers: [] as string[] };
  for (const path of paths) {
    const name = fileName(path);
    if (name?.id !== sessionId) continue;
    if (name.segment !== undefined) logs.segments.push({ path, number: Number(name.segment) });
    else if (name.writer !== undefined) logs.writers.push(path);
  }
  logs.segments.sort((a, b) => a.number - b.number);
  return logs;
}

/** What `action` returns, or `fallback` when it throws (a file gone meanwhile, a directory that cannot be read). */
function quietly<T>(action: () => T, fallback: T): T {
  try {
    return action();
  } catch {
    return fallback;
  }
}
export const statQuietly = (path: string): Stats | undefined => quietly(() => lstatSync(path), undefined);
export const listQuietly = (dir: string): string[] => quietly(() => readdirSync(dir), []);

/** What a file holds: its length, or its blocks when they are fewer (a sparse file, long in name only). */
export function diskBytes(stats: Stats): number {
  return Math.min(stats.size, stats.blocks * 512);
}

/** Bytes on disk under a directory, without following symlinks. */
function treeBytes(dir: string): number {
  let bytes = 0;
  for (const name of listQuietly(dir)) {
    const stats = statQuietly(join(dir, name));
    if (stats === undefined) continue;
    bytes += stats.isDirectory() ? treeBytes(join(dir, name)) : diskBytes(stats);
  }
  return bytes;
}

/** The regular files under `sessions/` named for a session, with their stats, by session id: one listing. */
export function sessionFilesById(stateDir: string): Map<string, { path: string; stats: Stats }[]> {
  const dir = join(stateDir, 'sessions');
  const byId = new Map<string, { path: string; stats: Stats }[]>();
  for (const name of listQuietly(dir)) {
    const id = fileName(name)?.id;
    const path = join(dir, name);
    const stats = id === undefined ? undefined : statQuietly(path);
    if (id === undefined || !stats?.isFile()) continue;
    if (!byId.has(id)) byId.set(id, []);
    byId.get(id)!.push({ path, stats });
  }
  return byId;
}

/** Every session in the state dir, in no particular order. */
export function scanSessions(stateDir: string): SessionFiles[] {
  const sessions = new Map<string, SessionFiles>();
  const entry = (id: string, stats: Stats): SessionFiles => {
    let session = sessions.get(id);
    if (!session) sessions.set(id, (session = { id, files: [], bytes: 0, lastWriteMs: 0 }));
    session.lastWriteMs = Math.max(session.lastWriteMs, stats.mtimeMs);
    return session;
  };
  for (const [id, files] of sessionFilesById(stateDir)) {
    for (const { path, stats } of files) {
      const session = entry(id, stats);
      session.files.push(path);
      session.bytes += diskBytes(stats);
    }
  }
  const spillRoot = join(stateDir, 'spill');
  for (const name of listQuietly(spillRoot)) {
    const stats = SESSION_ID_PATTERN.test(name) ? statQuietly(join(spillRoot, name)) : undefined;
    if (!stats?.isDirectory()) continue;
    const session = entry(name, stats);
    session.spillDir = join(spillRoot, name);
    session.bytes += treeBytes(session.spillDir);
  }
  for (const session of sessions.values()) {
    const writer = liveWriter(session.files);
    if (writer !== undefined) session.inUseBy = writer;
  }
  return [...sessions.values()];
}

export interface SessionSummary {
  id: string;
  /** When its first recorded call started, else the time in its id, else its oldest file's (ms since the epoch). */
  startedAt: number;
  /** Calls recorded and readable. */
  calls: number;
  /** Bytes on disk: logs and spill files. */
  bytes: number;
  /** The pid of a live process writing it. */
  inUseBy?: number;
  /** What reading its logs skipped or could not read, one line each. */
  problems: string[];
}

/** The UTC time a generated session id starts with (`20261130-105400-…`), if it has one. */
function idTime(id: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})-/.exec(id);
  const time = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
  return Number.isNaN(time) ? undefined : time;
}

/** One line's worth about each session in a state dir, oldest first (the order `replay` shows calls in). */
export function summarizeSessions(stateDir: string): SessionSummary[] {
  const summaries = scanSessions(stateDir).map((session): SessionSummary => {
    // Each log's outline (the main log, then every segment and writer's log): its count, first
    // start and damage, read a frame at a time, no body decoded.
    const mainLog = sessionLogPath(stateDir, session.id);
    const others = session.files.filter((path) => path.endsWith('.log') && path !== mainLog).sort();
    const outlines = [mainLog, ...others].map(outlineSessionLog);
    const starts = outlines.flatMap((outline) => outline.firstStart ?? []);
    const summary: SessionSummary = {
      id: session.id,
      startedAt: starts.length > 0 ? Math.min(...starts) : (idTime(session.id) ?? session.lastWriteMs),
      calls: outlines.reduce((sum, outline) => sum + outline.calls, 0),
      bytes: session.bytes,
      problems: outlines.flatMap((outline) => outline.damage),
    };
    if (session.inUseBy !== undefined) summary.inUseBy = session.inUseBy;
    return summary;
  });
  return summaries.sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id));
}
