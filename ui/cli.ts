#!/usr/bin/env node
// The `moonpool` command's entry: the command line is read and run by cli-main.ts, loaded as its
// own chunk so that each command loads only the modules it needs.
await import('./cli-main.js');
