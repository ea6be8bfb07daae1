// A generation's code: every `.lua` file under the config directory, read once when the
// generation loads. Every worker of the generation evaluates these bytes (require, dofile and
// loadfile look here first), so a file edited after the load cannot reach a worker started
// later, and a broken edit never leaks into the generation that keeps serving.
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Most Lua files one config directory may hold. */
export const MAX_SNAPSHOT_FILES = 2000;
/** Most bytes of Lua one config directory may hold. */
export const MAX_SNAPSHOT_BYTES = 32 * 1024 * 1024;

const SKIPPED_DIRECTORIES = new Set(['.git', 'node_modules']);

export interface ConfigSnapshot {
  /** Real path → file contents. */
  sources: Record<string, Uint8Array>;
  /** Why some files were left out (too many, too large): they are read from disk when needed. */
  truncated?: string;
}

export function snapshotConfig(dir: string): ConfigSnapshot {
  const sources: Record<string, Uint8Array> = {};
  let files = 0;
  let bytes = 0;
  const pending = [realpathSync(dir)];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) pending.push(path);
        continue;
      }
      if (!entry.name.endsWith('.lua')) continue;
      const real = realpathSync(path);
      const size = statSync(real).size;
      if (files >= MAX_SNAPSHOT_FILES || bytes + size > MAX_SNAPSHOT_BYTES) {
        return { sources, truncated: `the config directory holds more than ${MAX_SNAPSHOT_FILES} Lua files or ${MAX_SNAPSHOT_BYTES / 1048576} MiB` };
      }
      sources[real] = new Uint8Array(readFileSync(real));
      files++;
      bytes += size;
    }
  }
  return { sources };
}
