// `mkdir -p` that cannot spin. Node 20's recursive mkdirSync retries for ever when a parent exists
// but refuses a child with ENOENT (any path under /proc; nodejs/node#27198 is the same loop on
// Windows): here each missing level is created once, from the top, and the first failure is thrown
// as Node's own error, code and path included.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

export function makeDirectory(path: string, mode?: number): void {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      statSync(current);
      break;
    } catch (error) {
      const parent = dirname(current);
      if (errorCode(error) !== 'ENOENT' || parent === current) throw error;
      missing.push(current);
      current = parent;
    }
  }
  if (missing.length === 0 && !statSync(current).isDirectory()) {
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${current}'`), {
      code: 'EEXIST',
      syscall: 'mkdir',
      path: current,
    });
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir, mode === undefined ? {} : { mode });
    } catch (error) {
      // Made by someone else meanwhile is fine; a name taken by anything else is not.
      if (errorCode(error) !== 'EEXIST' || !statSync(dir).isDirectory()) throw error;
    }
  }
}
