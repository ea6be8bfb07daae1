// `mkdir -p` that cannot spin. Node 20's recursive mkdirSync retries for ever when a parent exists
// but refuses a child with ENOENT (any path under /proc; nodejs/node#27198 is the same loop on
// Windows): here each missing level is made once, from the top, and the first failure is thrown
// as Node's own error, code and path included.
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export function makeDirectory(path: string, mode?: number): void {
  make(resolve(path), mode, false);
}

function make(dir: string, mode: number | undefined, parentMade: boolean): void {
  try {
    mkdirSync(dir, mode === undefined ? {} : { mode });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Made already (by anyone) is fine; a name taken by anything else is not.
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return;
    if (code !== 'ENOENT' || parentMade || dirname(dir) === dir) throw error;
    make(dirname(dir), mode, false);
    make(dir, mode, true);
  }
}
