#!/usr/bin/env node
// The `moonpool` command's entry. It starts the worker threads the command will use (the inspect
// worker that loads the config, and for `call` the module worker beside it) before it loads the
// rest of the CLI (cli-main.ts), so that their start overlaps the CLI's own module loading and the
// reading of the config. A command line it cannot read starts none: cli-main.ts reports it.
import { prestartWorkers } from '../core/prestarted-workers.js';
import { parseCli, type CliInput } from './cli-options.js';

/** Worker threads a command starts at once: its inspect worker, and `call`'s warmed module worker. */
const WORKERS_AT_START: Partial<Record<CliInput['command'], number>> = { call: 2, list: 1, check: 1, mcp: 1, dash: 1, replay: 1 };

function workersAtStart(argv: string[]): number {
  try {
    return WORKERS_AT_START[parseCli(argv).command] ?? 0;
  } catch {
    return 0;
  }
}

prestartWorkers(workersAtStart(process.argv.slice(2)));
await import('./cli-main.js');
