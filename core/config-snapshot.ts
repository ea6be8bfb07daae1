// A generation's code: every `.lua` file under the config directory, read once when the
// generation loads. Every worker of the generation evaluates these bytes (require, dofile and
// loadfile look here first), so a file edited after the load cannot reach a worker started
// later, and a broken edit never leaks into the generation that keeps serving. Only regular
// files are read: a dangling symlink (an editor's lock file), a FIFO or a device named `*.lua`,
// or a directory that cannot be listed is skipped with a reason — never waited on, never fatal.
// The walk lets the host's event loop turn every WALK_SLICE_MS, so a config directory full of other
// files never stalls the host; symbolic links to directories are not followed (no loop can hold
// the walk), and a tree past MAX_CONFIG_ENTRIES entries fails the load.
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  opendirSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  type Dir,
  type Stats,
} from 'node:fs';
import { dirname, join } from 'node:path';

/** Most Lua files one config directory may hold. */
export const MAX_SNAPSHOT_FILES = 2000;
/** Most bytes of Lua one config directory may hold. */
export const MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024;
/** Most entries (files of any kind and directories) the walk lists; .git and node_modules are not walked. */
export const MAX_CONFIG_ENTRIES = 100_000;
/** Longest stretch the walk runs before the host's event loop turns. */
const WALK_SLICE_MS = 5;

/** Directories whose files never matter, neither read nor watched: version control and dependencies. */
export const SKIPPED_DIRECTORIES: ReadonlySet<string> = new Set(['.git', 'node_modules']);

export interface ConfigSnapshot {
  /** The real path of the directory read. */
  dir: string;
  /** Real path → file contents. */
  sources: Record<string, Uint8Array>;
  /** Why some files were left out (too many, too large): they are read from disk when needed. */
  truncated?: string;
  /** Entries that are not files that can be read, and why. */
  skipped: { path: string; reason: string }[];
}

const errorCode = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? (error as Error).message;

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** The bytes of a regular file, or why it is not one; opened without blocking (a FIFO swapped in would hang) and rechecked. */
export function readRegularFile(path: string): { real: string; bytes: Uint8Array } | { reason: string } {
  let real: string;
  try {
    real = realpathSync(path);
  } catch (error) {
    const code = errorCode(error);
    return { reason: code === 'ENOENT' ? 'a symbolic link to nothing' : `cannot be resolved (${code})` };
  }
  try {
    const stats = statSync(real);
    if (!stats.isFile()) return { reason: kindOf(stats) };
    const fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const opened = fstatSync(fd);
      if (!opened.isFile()) return { reason: kindOf(opened) };
      return { real, bytes: new Uint8Array(readFileSync(fd)) };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return { reason: `cannot be read (${errorCode(error)})` };
  }
}

/** Reads the config directory's Lua files; throws for a tree past MAX_CONFIG_ENTRIES entries. */
export async function snapshotConfig(dir: string): Promise<ConfigSnapshot> {
  const sources: Record<string, Uint8Array> = {};
  const skipped: ConfigSnapshot['skipped'] = [];
  let files = 0;
  let bytes = 0;
  let entries = 0;
  let sliceStartedAt = performance.now();
  const root = realpathSync(dir);
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop()!;
    let listing: Dir;
    try {
      listing = opendirSync(current);
    } catch (error) {
      skipped.push({ path: current, reason: `the directory cannot be listed (${errorCode(error)})` });
      continue;
    }
    try {
      for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) {
        if (++entries > MAX_CONFIG_ENTRIES) {
          throw new Error(
            `the config directory ${dir} holds more than ${MAX_CONFIG_ENTRIES.toLocaleString('en-US')} entries (the limit; .git and node_modules are not counted): keep what is not Lua elsewhere`,
          );
        }
        if (performance.now() - sliceStartedAt >= WALK_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          sliceStartedAt = performance.now();
        }
        const path = join(current, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRECTORIES.has(entry.name)) pending.push(path);
          continue;
        }
        if (!entry.name.endsWith('.lua')) continue;
        const file = readRegularFile(path);
        if ('reason' in file) {
          skipped.push({ path, reason: file.reason });
          continue;
        }
        if (files >= MAX_SNAPSHOT_FILES || bytes + file.bytes.length > MAX_SNAPSHOT_BYTES) {
          const truncated = `the config directory holds more than ${MAX_SNAPSHOT_FILES} Lua files or ${MAX_SNAPSHOT_BYTES / 1048576} MiB`;
          return { dir: root, sources, skipped, truncated };
        }
        sources[file.real] = file.bytes;
        files++;
        bytes += file.bytes.length;
      }
    } finally {
      listing.closeSync();
    }
  }
  return { dir: root, sources, skipped };
}

/** Reads the Lua files of the directory of the config `file`; undefined when it cannot be read. */
export async function readConfigSnapshot(file: string): Promise<ConfigSnapshot | undefined> {
  try {
    return await snapshotConfig(dirname(realpathSync(file)));
  } catch {
    return undefined;
  }
}

/** A digest of a snapshot's files (their real paths and bytes): equal digests, the same files. */
export function snapshotDigest({ sources }: ConfigSnapshot): string {
  const hash = createHash('sha256');
  for (const path of Object.keys(sources).sort())
    hash.update(`${path}\0${sources[path]!.length}\0`).update(sources[path]!);
  return hash.digest('hex');
}
