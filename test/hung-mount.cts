// Fault injection for tests: a file system whose open() hangs in the kernel, as a hung network
// mount's does. Preloaded with `node --require` (preloads run in every worker thread too), it makes
// worker threads open paths under a directory named `hung-mount` without O_NONBLOCK, so opening a
// FIFO there blocks where terminating the thread cannot interrupt it.
import type { OpenMode, PathLike } from 'node:fs';

const fs = process.getBuiltinModule('node:fs');
const { isMainThread } = process.getBuiltinModule('node:worker_threads');

if (!isMainThread) {
  const open = fs.openSync;
  const hung = (path: PathLike, flags: OpenMode | undefined): OpenMode | undefined =>
    String(path).includes('/hung-mount/') && typeof flags === 'number' ? flags & ~fs.constants.O_NONBLOCK : flags;
  fs.openSync = (path, flags, mode) => open(path, hung(path, flags) ?? 'r', mode);
}
