// Holds a tool's code to the permissions it declared (registry:add's `permissions`). A path is
// judged by where the kernel would take it: the real path of its existing part (symbolic links and
// `..` followed, a dangling link followed to where a create would land) with the rest appended; a
// descriptor once opened is judged again by its /proc/self/fd link, so a link swapped between the
// check and the open is caught. Programs and environment variables are held to their lists.
// Paths are handled as byte strings (latin1), so a file name that is not UTF-8 is judged as it is.
import fs from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { NativeError } from './lua-natives.js';
import type { ToolPermissions } from '../shared/protocol.js';

export type Access = 'read' | 'write';

/** Symbolic links followed while resolving one path, as the kernel's ELOOP bound. */
const MAX_LINKS = 40;

/** A UTF-8 string as a byte string, and back. */
const asBytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');
const asText = (bytes: string): string => Buffer.from(bytes, 'latin1').toString('utf8');

/** Where `path` (absolute, a byte string) leads: the real path of its longest existing part, the rest appended. */
export function realPath(path: string, links = 0): string {
  try {
    return fs.realpathSync.native(Buffer.from(path, 'latin1'), { encoding: 'latin1' });
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    const within = join(realPath(parent, links), basename(path));
    let target: string;
    try {
      target = fs.readlinkSync(Buffer.from(within, 'latin1'), { encoding: 'latin1' });
    } catch {
      return within;
    }
    return links >= MAX_LINKS ? within : realPath(resolve(dirname(within), target), links + 1);
  }
}

function inside(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => path === root || path.startsWith(root.endsWith('/') ? root : `${root}/`));
}

/** The places every guarded tool may use besides its own roots: its config (to read) and the session's spill directory. */
export interface GuardPlaces {
  cwd: string;
  configDir: string;
  spillDir: string;
}

export class PermissionGuard {
  private constructor(
    private readonly permissions: ToolPermissions,
    /** Real roots per access (byte strings); null: anywhere. */
    private readonly roots: Record<Access, string[] | null>,
  ) {}

  /** The guard of a call, or null for a tool that declared no permissions (it may touch everything). */
  static of(permissions: ToolPermissions | undefined, places: GuardPlaces): PermissionGuard | null {
    if (!permissions) return null;
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
   * Refuses `path` (absolute, a byte string) unless it lies under a root of `access`. `itself`:
   * the path names the entry itself, a link not followed (remove, rename).
   */
  checkPath(access: Access, path: string, itself = false): void {
    const roots = this.roots[access];
    if (roots === null) return;
    const real = itself ? join(realPath(dirname(path)), basename(path)) : realPath(path);
    if (!inside(real, roots)) this.refuse(access, asText(real));
  }

  /**
   * What `open` opened from `path` (absolute, a byte string), refused (and closed) when it lies
   * outside the roots of `access`: the descriptor's own link is what is judged, so nothing swapped
   * after a check can slip through. A write is judged by its path first too, since opening may
   * create; a path that fails to open is judged by its path, so a missing file outside is refused.
   */
  open(access: Access, path: string, open: () => number): number {
    const roots = this.roots[access];
    if (roots === null) return open();
    if (access === 'write') this.checkPath(access, path);
    let fd: number;
    try {
      fd = open();
    } catch (error) {
      this.checkPath(access, path);
      throw error;
    }
    const real = fs.readlinkSync(`/proc/self/fd/${fd}`, { encoding: 'latin1' });
    if (inside(real, roots)) return fd;
    fs.closeSync(fd);
    return this.refuse(access, asText(real));
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
