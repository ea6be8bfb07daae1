// The natives behind the prelude's `io` and `os`: synchronous file operations on the real file
// system, with paths as raw bytes resolved against the working directory, and errors in Lua's
// `nil, "path: message", errno` shape.
import fs from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { randomBytes } from 'node:crypto';
import { NativeError, type NativeCall, type NativeFunction } from './lua-natives.js';

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
};

const OPEN_FLAGS: Record<string, string> = { r: 'r', w: 'w', a: 'a', 'r+': 'r+', 'w+': 'w+', 'a+': 'a+' };

function failure(error: unknown, label: Buffer | null): unknown[] {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const message = MESSAGES[code] ?? (error as Error).message;
  const errno = (constants.errno as Record<string, number>)[code] ?? 0;
  return [null, label ? `${label.toString('utf8')}: ${message}` : message, errno];
}

/** Whether `path` names a regular file (any failure, ENOTDIR or ENAMETOOLONG too, is a no). */
function isReadableFile(path: Buffer): boolean {
  try {
    return fs.statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Natives for the real file system. `sources` is the generation's snapshot of its Lua files
 * (real path → bytes): code is loaded from there first (`code_of`, `code_exists`).
 */
export function createFsNatives(cwd: string, sources: Record<string, Uint8Array>): Record<string, NativeFunction> {
  const resolve = (path: Buffer): Buffer => (path[0] === 0x2f ? path : Buffer.concat([Buffer.from(`${cwd}/`), path]));
  const pathArg = (call: NativeCall, index: number): Buffer => {
    const path = call.bytes(index);
    if (path === null) throw new NativeError(`bad argument #${index} (string expected, got ${call.typeName(index)})`);
    return path;
  };
  const attempt = (label: Buffer | null, action: () => unknown[]): unknown[] => {
    try {
      return action();
    } catch (error) {
      return failure(error, label);
    }
  };

  /** The snapshot's key for a path: its real path, or (for a file gone from disk) its absolute path. */
  const sourceKey = (path: Buffer): string => {
    const absolute = resolve(path).toString('utf8');
    try {
      return fs.realpathSync(absolute);
    } catch {
      return normalize(absolute);
    }
  };

  return {
    code_exists: (call) => {
      const path = pathArg(call, 1);
      return [sources[sourceKey(path)] !== undefined || isReadableFile(resolve(path))];
    },
    code_of: (call) => {
      const path = pathArg(call, 1);
      const key = sourceKey(path);
      const snapshot = sources[key];
      if (snapshot) return [snapshot, key];
      return attempt(path, () => [fs.readFileSync(resolve(path)), key]);
    },
    fs_open: (call) => {
      const path = pathArg(call, 1);
      const flags = OPEN_FLAGS[call.string(2) ?? 'r'] ?? 'r';
      return attempt(path, () => [fs.openSync(resolve(path), flags, 0o666)]);
    },
    fs_read: (call) =>
      attempt(null, () => {
        const length = call.number(3)!;
        const buffer = Buffer.allocUnsafe(length);
        const read = fs.readSync(call.number(1)!, buffer, 0, length, call.number(2));
        return read === 0 ? [null] : [buffer.subarray(0, read)];
      }),
    fs_write: (call) =>
      attempt(null, () => {
        const fd = call.number(1)!;
        const offset = call.number(2)!;
        const data = call.bytes(3) ?? Buffer.alloc(0);
        let written = 0;
        while (written < data.length) {
          written += fs.writeSync(fd, data, written, data.length - written, offset < 0 ? null : offset + written);
        }
        return [true];
      }),
    fs_size: (call) => attempt(null, () => [fs.fstatSync(call.number(1)!).size]),
    fs_close: (call) => attempt(null, () => (fs.closeSync(call.number(1)!), [true])),
    fs_remove: (call) => {
      const path = pathArg(call, 1);
      return attempt(path, () => {
        const target = resolve(path);
        if (fs.lstatSync(target).isDirectory()) fs.rmdirSync(target);
        else fs.unlinkSync(target);
        return [true];
      });
    },
    fs_rename: (call) => {
      const from = pathArg(call, 1);
      const to = pathArg(call, 2);
      return attempt(null, () => (fs.renameSync(resolve(from), resolve(to)), [true]));
    },
    fs_tmpname: () => {
      const path = join(tmpdir(), `lua_${randomBytes(6).toString('hex')}`);
      fs.closeSync(fs.openSync(path, 'wx', 0o600));
      return [path];
    },
    getenv: (call) => {
      const name = call.string(1);
      if (name === null) throw new NativeError(`bad argument #1 to 'getenv' (string expected, got ${call.typeName(1)})`);
      return [process.env[name] ?? null];
    },
  };
}
