// How the user ran moonpool, for hints that tell them what to type next: `moonpool` when that
// name on PATH is this very program, else `node PATH/TO/cli.js` (a clone, where `moonpool` is not
// on PATH, or is another copy).
import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { displayPath } from './diagnostic-format.js';

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

let asRun: string | undefined;

/** `moonpool`, or `node dist/ui/cli.js` (the path as the current directory sees it). */
export function commandAsRun(): string {
  if (asRun !== undefined) return asRun;
  const script = process.argv[1];
  const self = script === undefined ? undefined : realPath(script);
  const onPath = (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => realPath(join(dir, 'moonpool')));
  asRun =
    self === undefined || onPath.includes(self) || script === undefined ? 'moonpool' : `node ${displayPath(script)}`;
  return asRun;
}
