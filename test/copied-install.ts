// A copy of this build in a directory of its own, whose files a test may take away or replace:
// `dist/` copied, the rest linked (`node_modules` package by package, so that one package can be
// taken away). Removed when the test file finishes.
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ToolHost } from '../core/index.js';
import { ROOT, tempDir } from './helpers.js';

export interface CopiedInstall {
  install: string;
  ToolHost: typeof ToolHost;
  /** Imports one of the copy's own core modules (`worker-pool.js`, say). */
  loadCore<T>(file: string): Promise<T>;
}

export async function copiedInstall(): Promise<CopiedInstall> {
  const install = tempDir();
  cpSync(join(ROOT, 'dist'), join(install, 'dist'), { recursive: true });
  mkdirSync(join(install, 'node_modules'));
  for (const name of readdirSync(join(ROOT, 'node_modules')))
    symlinkSync(join(ROOT, 'node_modules', name), join(install, 'node_modules', name));
  for (const name of ['workers', 'package.json']) symlinkSync(join(ROOT, name), join(install, name));
  const loadCore = async <T>(file: string): Promise<T> =>
    (await import(pathToFileURL(join(install, 'dist', 'core', file)).href)) as T;
  return { install, ToolHost: (await loadCore<{ ToolHost: typeof ToolHost }>('index.js')).ToolHost, loadCore };
}
