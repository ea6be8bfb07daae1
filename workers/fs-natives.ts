// The natives behind the prelude's `io` and `os`: synchronous file operations on the real file
// system, with paths as raw bytes resolved against the working directory, and errors in Lua's
// `nil, "path: message", errno` shape. A descriptor from Lua is used only if this worker's `fs_open`
// returned it and it is still open: a record a tool forged cannot name another descriptor of the
// host process (the worker is one of its threads).
import fs from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { NativeError, type NativeCall, type NativeFunction } from './lua-natives.js';
import type { ChunkNames } from './chunk-names.js';
import type { WorkerConfig } from '../shared/protocol.js';
import { PermissionGuard } from './permission-guard.js';

const MESSAGES: Record<string, string> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  EPERM: 'Operation not permitted',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EEXIST: 'File exists',
  ENOTEMPTY: 'Directory not empty',
  EBADF: 'Bad file descriptor',
  EMFILE: 'Too many open files',
  ENOSPC: 'No space left on device',
  EROFS: 'Read-only file system',
  EXDEV: 'Invalid cross-device link',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  EINVAL: 'Invalid argument',
  EAGAIN: 'Resource temporarily unavailable',
  EPIPE: 'Broken pipe',
  EIO: 'Input/output error',
  EFBIG: 'File too large',
  EDQUOT: 'Disk quota exceeded',
  EBUSY: 'Device or resource busy',
  ETXTBSY: 'Text file busy',
  ENXIO: 'No such device or address',
  ENODEV: 'No such device',
  ESPIPE: 'Illegal seek',
  ENOTREG: 'Not a regular file (only regular files are loaded as code)',
};

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_APPEND, O_NONBLOCK } = fs.constants;

/** fopen's modes as open(2) flags, all O_NONBLOCK: a FIFO or device must never block the worker's thread. */
const OPEN_FLAGS: Record<string, number> = {
  r: O_RDONLY | O_NONBLOCK,
  w: O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK,
  a: O_WRONLY | O_CREAT | O_APPEND | O_NONBLOCK,
  'r+': O_RDWR | O_NONBLOCK,
  'w+': O_RDWR | O_CREAT | O_TRUNC | O_NONBLOCK,
  'a+': O_RDWR | O_CREAT | O_APPEND | O_NONBLOCK,
};

/** Runs a read or write at `offset` (the prelude keeps positions), or where the stream is if it cannot seek. */
function atOffsetOrStream(offset: number | null, transfer: (position: number | null) => number): number {
  if (offset === null) return transfer(null);
  try {
    return transfer(offset);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESPIPE') throw error;
    return transfer(null);
  }
}

/** Reads a file to load as code: only a regular file, opened without blocking, and one the guard allows. */
function readCodeFile(path: Buffer, guard: PermissionGuard): Buffer {
  const fd = guard.openToRead(path.toString('latin1'), () => fs.openSync(path, O_RDONLY | O_NONBLOCK));
  try {
    if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Natives for the real file system, `guard` the running task's. While `configLoading`, code comes
 * from the config's `sources` first (the generation's snapshot of its Lua files, real path →
 * bytes), so every worker evaluates the same config; afterwards from the disk, as in native Lua.
 * `chunkNames` remembers the paths code is read from.
 */
export function createFsNatives(
  { cwd, sources }: WorkerConfig,
  chunkNames: ChunkNames,
  configLoading: () => boolean,
  guard: () => PermissionGuard,
): Record<string, NativeFunction> {
  /** `path` against the working directory; an empty path names no file (`os.remove('')` must not remove cwd). */
  const resolve = (path: Buffer): Buffer => {
    if (path.length === 0) throw Object.assign(new Error('empty path'), { code: 'ENOENT' });
    return path[0] === 0x2f ? path : Buffer.concat([Buffer.from(`${cwd}/`), path]);
  };
  /** The resolved path as the guard takes it: a byte string. */
  const place = (path: Buffer): string => resolve(path).toString('latin1');
  /** A path argument as C's file functions see it: up to its first NUL byte. */
  const pathArg = (call: NativeCall, index: number): Buffer => {
    const path = call.bytes(index);
    if (path === null) throw new NativeError(`bad argument #${index} (string expected, got ${call.typeName(index)})`);
    const nul = path.indexOf(0);
    return nul === -1 ? path : path.subarray(0, nul);
  };
  /** `action`'s results, or Lua's `nil, "label: message", errno` for its failure. */
  const attempt = (label: Buffer | null, action: () => unknown[]): unknown[] => {
    try {
      return action();
    } catch (error) {
      // A permission refused is a Lua error at the tool's line, not a failure to return.
      if (error instanceof NativeError) throw error;
      const code = (error as NodeJS.ErrnoException).code ?? '';
      const message = MESSAGES[code] ?? (error as Error).message;
      const errno = (constants.errno as Record<string, number>)[code] ?? 0;
      return [null, label ? `${label.toString('utf8')}: ${message}` : message, errno];
    }
  };
  const absoluteOf = (path: Buffer): string => normalize(resolve(path).toString('utf8'));
  /** The snapshot's key for a path: its real path, or (for a file gone from disk) its absolute path. */
  const sourceKey = (path: Buffer): string => {
    const absolute = absoluteOf(path);
    // Keys are real paths: a path that is one needs no look at the disk (each worker evaluating
    // the config probes package.path for every require).
    if (sources[absolute] !== undefined) return absolute;
    try {
      return fs.realpathSync.native(absolute);
    } catch {
      return absolute;
    }
  };

  /** The descriptors `fs_open` returned and `fs_close` has not closed yet. */
  const opened = new Set<number>();
  /** The descriptor in argument 1, if it is one of `opened`; refused at the tool's line otherwise. */
  const openedDescriptor = (call: NativeCall): number => {
    const fd = call.number(1);
    if (fd !== null && opened.has(fd)) return fd;
    const named = fd === null ? `a ${call.typeName(1)}` : String(fd);
    throw new NativeError(`bad file descriptor (${named}): not a file this worker opened and has not closed`, 'tool');
  };
  const open = (path: Buffer, mode: string): number => {
    const flags = OPEN_FLAGS[mode] ?? OPEN_FLAGS['r']!;
    const fd =
      mode === 'r'
        ? guard().openToRead(place(path), () => fs.openSync(resolve(path), flags, 0o666))
        : guard().openToWrite(place(path), flags, 0o666);
    opened.add(fd);
    return fd;
  };

  return {
    code_exists: (call) => {
      const path = pathArg(call, 1);
      // A path that is a key is in the snapshot; any other real file exists too.
      if (path.length === 0) return [false];
      if (configLoading() && sources[absoluteOf(path)] !== undefined) return [true];
      // Outside a guarded tool's read roots nothing is looked for (whether a file is there must not
      // show): the second result says so, and code_refused refuses it if no other path is found.
      const absolute = resolve(path);
      if (!guard().mayRead(absolute.toString('latin1'))) return [false, true];
      try {
        // A missing file is the common answer (package.path probes): no exception is made for it.
        return [fs.statSync(absolute, { throwIfNoEntry: false })?.isFile() ?? false];
      } catch {
        return [false]; // ENOTDIR, ENAMETOOLONG…
      }
    },
    code_refused: (call) => {
      guard().checkPath('read', place(pathArg(call, 1)));
      return [];
    },
    code_of: (call) => {
      const path = pathArg(call, 1);
      // A path is remembered once its code is read: a missing or refused one never names a chunk.
      if (configLoading() && path.length > 0) {
        const key = sourceKey(path);
        const code = sources[key];
        if (code) return (chunkNames.remember(key), [code, key]);
        return attempt(path, () => {
          const read = readCodeFile(resolve(path), PermissionGuard.UNRESTRICTED);
          chunkNames.remember(key);
          return [read, key];
        });
      }
      return attempt(path, () => {
        const read = readCodeFile(resolve(path), guard());
        chunkNames.remember(path.toString('utf8'));
        return [read];
      });
    },
    fs_open: (call) => {
      const path = pathArg(call, 1);
      return attempt(path, () => [open(path, call.string(2) ?? 'r')]);
    },
    fs_read: (call) =>
      attempt(null, () => {
        const fd = openedDescriptor(call);
        const length = call.number(3)!;
        const buffer = Buffer.allocUnsafe(length);
        const read = atOffsetOrStream(call.number(2), (position) => fs.readSync(fd, buffer, 0, length, position));
        return read === 0 ? [null] : [buffer.subarray(0, read)];
      }),
    /**
     * Writes `data` from its byte `start` (argument 4) on. A failure also gives how far it got: after
     * EAGAIN (a FIFO's reader behind) the prelude waits and writes the rest.
     */
    fs_write: (call) => {
      let written = call.number(4) ?? 0;
      const result = attempt(null, () => {
        const fd = openedDescriptor(call);
        const offset = call.number(2)!;
        const data = call.bytes(3) ?? Buffer.alloc(0);
        while (written < data.length) {
          written += atOffsetOrStream(offset < 0 ? null : offset + written, (position) =>
            fs.writeSync(fd, data, written, data.length - written, position),
          );
        }
        return [true];
      });
      return result[0] === null ? [...result, written] : result;
    },
    fs_is_fifo: (call) => attempt(null, () => [fs.fstatSync(openedDescriptor(call)).isFIFO()]),
    /** A promise the prelude awaits between two reads of a FIFO or device with nothing to read yet. */
    fs_pause: (call) => new Promise((resolve) => setTimeout(() => resolve([]), call.number(1) ?? 0)),
    fs_size: (call) => attempt(null, () => [fs.fstatSync(openedDescriptor(call)).size]),
    fs_close: (call) =>
      attempt(null, () => {
        const fd = openedDescriptor(call);
        // Forgotten first: a failed close(2) leaves the descriptor closed all the same.
        opened.delete(fd);
        fs.closeSync(fd);
        return [true];
      }),
    fs_remove: (call) => {
      const path = pathArg(call, 1);
      return attempt(path, () => (guard().remove(place(path)), [true]));
    },
    fs_rename: (call) => {
      const from = pathArg(call, 1);
      const to = pathArg(call, 2);
      return attempt(null, () => (guard().rename(place(from), place(to)), [true]));
    },
    fs_tmpname: () => {
      // node:crypto is loaded here, not at the worker's start (few tools call os.tmpname).
      const path = join(tmpdir(), `lua_${process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex')}`);
      fs.closeSync(guard().openToWrite(Buffer.from(path).toString('latin1'), O_WRONLY | O_CREAT | O_EXCL, 0o600));
      return [path];
    },
    getenv: (call) => {
      const name = call.string(1);
      if (name === null)
        throw new NativeError(`bad argument #1 to 'getenv' (string expected, got ${call.typeName(1)})`);
      return [guard().sees(name) ? (process.env[name] ?? null) : null];
    },
  };
}
