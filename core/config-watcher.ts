// Watches a config directory and calls back once a burst of changes has settled (debounced), so an editor's save
// causes one reload. It watches every directory of the tree, not files: a save that renames a new file over the old
// one (vim, `sed -i`) would silence a watch on the file's inode. Directories are watched as they appear, let go as they
// go, and watched anew when replaced at the same path; the config directory is watched from its parent too, so one
// made again (`rm -rf cfg && cp -r … cfg`, a branch switch) is watched anew even with its old inode number. Writes to
// files that cannot hold Lua do not count; a burst that never pauses settles MAX_WAIT_FACTOR debounce periods after it
// began. The tree is listed asynchronously, a directory at a time, so a rescan never holds up the host's thread.
import { statSync, watch, type FSWatcher } from 'node:fs';
import { opendir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SKIPPED_DIRECTORIES } from './config-snapshot.js';

export const DEFAULT_WATCH_DEBOUNCE_MS = 200;
/** A burst that never pauses settles at most this many debounce periods after its first change. */
const MAX_WAIT_FACTOR = 5;

/** Most directories watched, so a config dir with a huge tree cannot exhaust inotify watches. */
export const MAX_WATCHED_DIRS = 1000;

export interface ConfigWatcher {
  /** Settles once the first scan has watched every directory of the tree (the root is watched at once). */
  readonly ready: Promise<void>;
  close(): void;
}

/** Entries a directory listing reads at a time (each read is a turn of the event loop). */
const LISTING_BATCH = 128;

/** `root` and the directories under it, in breadth-first order, at most MAX_WATCHED_DIRS; `stop` ends the walk early. */
async function directoriesUnder(root: string, stop: () => boolean): Promise<string[]> {
  const found = [root];
  for (let i = 0; i < found.length && found.length < MAX_WATCHED_DIRS && !stop(); i++) {
    try {
      for await (const entry of await opendir(found[i]!, { bufferSize: LISTING_BATCH })) {
        const path = join(found[i]!, entry.name);
        if (entry.isDirectory() && !SKIPPED_DIRECTORIES.has(entry.name) && found.length < MAX_WATCHED_DIRS)
          found.push(path);
      }
    } catch {
      continue; // Gone or unreadable: nothing to watch there.
    }
  }
  return found;
}

export function watchConfig(
  root: string,
  onSettled: () => void,
  debounceMs = DEFAULT_WATCH_DEBOUNCE_MS,
): ConfigWatcher {
  const watchers = new Map<string, { watcher: FSWatcher; inode: number }>();
  let timer: NodeJS.Timeout | undefined;
  let burstStartedAt: number | undefined;
  let closed = false;
  const unwatch = (dir: string): void => {
    watchers.get(dir)?.watcher.close();
    watchers.delete(dir);
  };

  const settle = (): void => {
    burstStartedAt = undefined;
    // A rename may have added or removed a directory: bring the watched set up to date first, so
    // that nothing written once the reload has read the tree goes unseen.
    void rescan().then(() => {
      if (!closed) onSettled();
    });
  };

  const changed = (): void => {
    if (closed) return;
    clearTimeout(timer);
    burstStartedAt ??= Date.now();
    const waited = Date.now() - burstStartedAt;
    timer = setTimeout(settle, Math.max(0, Math.min(debounceMs, debounceMs * MAX_WAIT_FACTOR - waited)));
  };

  /** A change in `dir` to `name`; a write to a regular file that cannot hold Lua is no change. */
  const changedIn =
    (dir: string) =>
    (_event: string, name: string | Buffer | null): void => {
      const path = typeof name === 'string' ? join(dir, name) : undefined;
      // A watched directory was removed, renamed or made again: its watch may be dead even when
      // one made again gets its old inode number back, so the next rescan watches it anew.
      if (path !== undefined && watchers.has(path)) unwatch(path);
      else if (path !== undefined && !path.endsWith('.lua')) {
        try {
          if (statSync(path).isFile()) return;
        } catch {
          // Gone: it may have been a directory, or a module's old name.
        }
      }
      changed();
    };

  // The config directory seen from its parent: made again, everything under it is watched anew.
  let rootWatcher: FSWatcher | undefined;
  try {
    rootWatcher = watch(dirname(root), (_event, name) => {
      if (name !== basename(root)) return;
      for (const dir of watchers.keys()) unwatch(dir);
      changed();
    });
    rootWatcher.on('error', () => rootWatcher?.close());
  } catch {
    // A parent that cannot be watched: a root made again is then seen only by its own watch.
  }

  const watchDirectory = (dir: string, inode: number): void => {
    try {
      const watcher = watch(dir, changedIn(dir));
      // A directory that disappears mid-edit is not a reason to take the host down.
      watcher.on('error', () => {
        watcher.close();
        if (watchers.get(dir)?.watcher === watcher) watchers.delete(dir);
        changed();
      });
      watchers.set(dir, { watcher, inode });
    } catch {
      // Removed between the scan and the watch: the next rescan settles it.
    }
  };

  /** Lists the tree and brings the watched set up to it: one scan at a time, each after those asked for before. */
  let scans = Promise.resolve();
  const rescan = (): Promise<void> => (scans = scans.then(scanOnce));

  async function scanOnce(): Promise<void> {
    const wanted = new Map<string, number | undefined>();
    for (const dir of await directoriesUnder(root, () => closed))
      wanted.set(dir, (await stat(dir).catch(() => undefined))?.ino);
    if (closed) return;
    for (const [dir, watched] of watchers) if (wanted.get(dir) !== watched.inode) unwatch(dir);
    for (const [dir, inode] of wanted) if (!watchers.has(dir) && inode !== undefined) watchDirectory(dir, inode);
  }

  // The root is watched at once; what is under it, once listed.
  const rootInode = statSync(root, { throwIfNoEntry: false })?.ino;
  if (rootInode !== undefined) watchDirectory(root, rootInode);
  const ready = rescan();
  return {
    ready,
    close() {
      closed = true;
      clearTimeout(timer);
      rootWatcher?.close();
      for (const dir of watchers.keys()) unwatch(dir);
    },
  };
}
