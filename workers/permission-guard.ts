// Holds a tool's code to the permissions it declared (registry:add's `permissions`). A path is
// judged by where the kernel would take it (links and `..` followed). A read is judged before it is
// opened and again by its descriptor's /proc/self/fd link; a write is opened inside a directory
// already opened and judged, so nothing swapped between a check and an open gets through.
// Paths are byte strings (latin1), so a file name that is not UTF-8 is judged as it is; one of
// PATH_MAX bytes or more is refused as the kernel refuses it, before anything resolves it.
import fs from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { NativeError } from './lua-natives.js';
import type { ToolPermissions, WorkerConfig } from '../shared/protocol.js';

type Access = 'read' | 'write';

/** Symbolic links followed while resolving one path, as the kernel's ELOOP bound. */
const MAX_LINKS = 40;

/** open(2)'s O_PATH on Linux, which Node does not export: a descriptor that only names a place. */
const O_PATH = 0o10000000;
const { O_DIRECTORY, O_NOFOLLOW } = fs.constants;

/** A UTF-8 string as a byte string, and back. */
const asBytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const asText = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/** Linux's PATH_MAX: a path of this many bytes or more (its NUL included) is refused by every kernel call. */
const PATH_MAX = 4096;

/** Whether the kernel would refuse `path` (a byte string) as too long, whatever it names. */
function tooLong(path: string): boolean {
  return path.length >= PATH_MAX;
}

/** Throws the kernel's own ENAMETOOLONG for a path it would refuse, before anything resolves it. */
function refuseTooLong(path: string): void {
  if (tooLong(path))
    throw Object.assign(new Error('ENAMETOOLONG: name too long'), { code: 'ENAMETOOLONG', errno: -36 });
}

/** The real path of `path`, or null if it does not resolve. */
function realOrNull(path: string): string | null {
  try {
    return fs.realpathSync.native(Buffer.from(path, 'latin1'), { encoding: 'latin1' });
  } catch {
    return null;
  }
}

/**
 * Where `path` (absolute, a byte string) leads: the real path of its longest existing part, the rest
 * appended, a link met in the rest followed (up to MAX_LINKS). The longest existing part is found
 * by halving (an ancestor of a path that resolves resolves too), and below a missing name nothing
 * is looked up, so the cost stays near linear in the path's length.
 */
export function realPath(path: string, links = 0): string {
  const real = realOrNull(path);
  if (real !== null) return real;
  // `/a/b/c`, `/a/b`, `/a`, `/`: the root always resolves.
  const ancestors = [path];
  for (let parent = dirname(path); parent !== ancestors.at(-1); parent = dirname(parent)) ancestors.push(parent);
  let missing = 0;
  let existing = ancestors.length - 1;
  // The root resolves to itself; the search keeps the real path of the longest existing part it found.
  let resolved = ancestors[existing]!;
  while (existing - missing > 1) {
    const middle = (missing + existing) >> 1;
    const middleReal = realOrNull(ancestors[middle]!);
    if (middleReal === null) missing = middle;
    else [existing, resolved] = [middle, middleReal];
  }
  // Whether `resolved` names nothing, and so neither does a name under it.
  let absent = false;
  for (let at = existing - 1; at >= 0; at--) {
    const name = basename(ancestors[at]!);
    if (name === '..') absent = false;
    resolved = appended(resolved, name);
    if (absent) continue;
    let target: string;
    try {
      target = fs.readlinkSync(Buffer.from(resolved, 'latin1'), { encoding: 'latin1' });
    } catch (error) {
      absent = ['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '');
      continue;
    }
    // A link whose target did not resolve (a dangling one): where it would lead.
    if (links < MAX_LINKS) resolved = realPath(resolve(dirname(resolved), target), links + 1);
  }
  return resolved;
}

/** `name` appended to the normalized path `base` as path.join would, without normalizing `base` again. */
function appended(base: string, name: string): string {
  if (name === '' || name === '.') return base;
  if (name === '..') return dirname(base);
  return base.endsWith('/') ? base + name : `${base}/${name}`;
}

/** Whether `path` is a root or lies under one (`/a/b` is under `/a`, `/ab` is not); `strictly`: under one, not a root. */
function inside(path: string, roots: readonly string[], strictly = false): boolean {
  for (const root of roots) {
    if (!path.startsWith(root)) continue;
    if (path.length === root.length ? !strictly : root.endsWith('/') || path.charCodeAt(root.length) === 0x2f)
      return true;
  }
  return false;
}

export class PermissionGuard {
  private constructor(
    private readonly permissions: ToolPermissions,
    /** Real roots per access (byte strings); null: anywhere. */
    private readonly roots: Record<Access, string[] | null>,
  ) {}

  /** The guard of a tool that declared no permissions: it may touch everything. */
  static readonly UNRESTRICTED = new PermissionGuard(
    { read: true, write: true, exec: true, env: true },
    { read: null, write: null },
  );

  /** The guard of a call (UNRESTRICTED without permissions): its roots, with the config (to read) and spill dir. */
  static of(permissions: ToolPermissions | undefined, places: WorkerConfig): PermissionGuard {
    if (!permissions) return PermissionGuard.UNRESTRICTED;
    const cwd = asBytes(places.cwd);
    const home = asBytes(homedir());
    const rootsOf = (paths: true | string[]): string[] | null =>
      paths === true ? null : paths.map((path) => realPath(resolve(cwd, asBytes(path).replace(/^~(?=\/|$)/, home))));
    const spill = realPath(asBytes(places.spillDir));
    const write = rootsOf(permissions.write);
    const read = rootsOf(permissions.read);
    return new PermissionGuard(permissions, {
      write: write && [...write, spill],
      read: read && write && [...read, ...write, realPath(asBytes(places.configDir)), spill],
    });
  }

  private refuse(kind: keyof ToolPermissions, what: string): never {
    const declared =
      kind === 'read'
        ? [...(this.permissions.read as string[]), ...(this.permissions.write as string[])]
        : (this.permissions[kind] as string[]);
    const allowed = [...new Set(declared)].join(', ') || 'none';
    throw new NativeError(`${kind} outside the tool's permissions: ${what} (allowed: ${allowed})`, 'tool');
  }

  /**
   * Refuses `path` (absolute) unless it leads under a root of `access` (a missing file too).
   * `itself`: the entry itself, a last link not followed.
   */
  checkPath(access: Access, path: string, itself = false): void {
    const roots = this.roots[access];
    if (roots === null) return;
    refuseTooLong(path);
    const real = itself ? join(realPath(dirname(path)), basename(path)) : realPath(path);
    if (!inside(real, roots)) this.refuse(access, asText(real));
  }

  /** Whether `path` (absolute) leads under a read root; a path too long to reach anything may be looked for. */
  mayRead(path: string): boolean {
    const roots = this.roots.read;
    return roots === null || tooLong(path) || inside(realPath(path), roots);
  }

  /**
   * What `open` opened from `path` to read, inside the read roots or not at all: judged before it is
   * opened (opening a device or a FIFO may act by itself), then by the descriptor's own link.
   */
  openToRead(path: string, open: () => number): number {
    const roots = this.roots.read;
    if (roots === null) return open();
    this.checkPath('read', path);
    const fd = open();
    const real = fs.readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'latin1' });
    if (inside(real, roots)) return fd;
    fs.closeSync(fd);
    return this.refuse('read', asText(real));
  }

  /**
   * Runs `act` on `path`'s entry as `/proc/self/fd/DIR/name`, DIR its directory opened (O_PATH) and
   * judged against the write roots: the entry acted on is the one judged. `moves`: the entry is
   * removed, renamed or replaced, which a root never is (a root replaced by a link would lead outside).
   */
  private inJudgedDirectory<T>(path: string, act: (entry: Buffer, where: string) => T, moves = false): T {
    const roots = this.roots.write;
    if (roots === null) return act(Buffer.from(path, 'latin1'), dirname(path));
    refuseTooLong(path);
    let directory: number;
    try {
      directory = fs.openSync(Buffer.from(dirname(path), 'latin1'), O_PATH | O_DIRECTORY);
    } catch (error) {
      this.checkPath('write', path, true);
      throw error;
    }
    try {
      const where = fs.readlinkSync(`/proc/self/fd/${directory}`, { encoding: 'latin1' });
      const real = join(where, basename(path));
      if (!inside(real, roots)) this.refuse('write', asText(real));
      if (moves && !inside(real, roots, true))
        throw new NativeError(
          `${asText(real)} is a root of the tool's permissions: a tool may not remove, rename or replace a root`,
          'tool',
        );
      return act(Buffer.from(`/proc/self/fd/${directory}/${basename(path)}`, 'latin1'), where);
    } finally {
      fs.closeSync(directory);
    }
  }

  /**
   * Opens `path` to write with open(2) `flags`, inside the write roots or not at all: in its judged
   * directory, a last link followed here and judged the same way.
   */
  openToWrite(path: string, flags: number, mode: number): number {
    if (this.roots.write === null) return fs.openSync(Buffer.from(path, 'latin1'), flags, mode);
    let target = path;
    for (let links = 0; ; links++) {
      const opened = this.inJudgedDirectory(target, (entry, where) => {
        try {
          return fs.openSync(entry, flags | O_NOFOLLOW, mode);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ELOOP' || links >= MAX_LINKS) throw error;
          return resolve(where, fs.readlinkSync(entry, { encoding: 'latin1' }));
        }
      });
      if (typeof opened === 'number') return opened;
      target = opened;
    }
  }

  /** Removes `path`'s entry itself (a link, not its target; an empty directory too), only under the write roots. */
  remove(path: string): void {
    const remove = (entry: Buffer): void => (fs.lstatSync(entry).isDirectory() ? fs.rmdirSync : fs.unlinkSync)(entry);
    this.inJudgedDirectory(path, remove, true);
  }

  /** Renames the entry `from` to `to` (both absolute byte strings), both judged as for `remove`. */
  rename(from: string, to: string): void {
    this.inJudgedDirectory(
      from,
      (source) => this.inJudgedDirectory(to, (target) => fs.renameSync(source, target), true),
      true,
    );
  }

  /** Refuses a program the tool may not start: its name as the tool gave it, or null for a shell command. */
  checkProgram(program: string | null): void {
    const allowed = this.permissions.exec;
    if (allowed === true) return;
    if (program === null ? allowed.includes('sh') || allowed.includes('/bin/sh') : allowed.includes(program)) return;
    this.refuse('exec', program ?? 'sh, to run a shell command');
  }

  /** Whether the tool sees the environment variable `name`. */
  sees(name: string): boolean {
    const allowed = this.permissions.env;
    return allowed === true || allowed.includes(name);
  }

  /** The environment a command of the tool starts with: only the variables it may see. */
  environment(): NodeJS.ProcessEnv {
    const allowed = this.permissions.env;
    if (allowed === true) return process.env;
    return Object.fromEntries(
      allowed.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]),
    );
  }
}
