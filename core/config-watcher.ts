// Watches a config directory and calls back once a burst of changes has settled (debounced), so
// an editor's save — often several writes and renames — causes one reload.
import { watch, type FSWatcher } from 'node:fs';

export const DEFAULT_WATCH_DEBOUNCE_MS = 200;

/** Paths under the config dir whose changes never matter: version control and dependencies. */
const IGNORED = /(^|\/)(\.git|node_modules)(\/|$)/;

export interface ConfigWatcher {
  close(): void;
}

export function watchConfig(dir: string, onSettled: () => void, debounceMs = DEFAULT_WATCH_DEBOUNCE_MS): ConfigWatcher {
  let timer: NodeJS.Timeout | undefined;
  const watcher: FSWatcher = watch(dir, { recursive: true }, (_event, filename) => {
    if (filename && IGNORED.test(filename.toString())) return;
    clearTimeout(timer);
    timer = setTimeout(onSettled, debounceMs);
  });
  // A directory that disappears mid-edit is not a reason to take the host down.
  watcher.on('error', () => undefined);
  return {
    close() {
      clearTimeout(timer);
      watcher.close();
    },
  };
}
