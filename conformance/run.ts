// `npm run conformance -- DIR [FILE...] [--verbose]`: runs the official Lua test suite in DIR file
// by file, natively with `lua5.4` (the control) and inside moonpool, prints a table and exits 1 when
// a file that passes natively fails in moonpool, unless it is a documented exception.
import { resolve } from 'node:path';
import { DOCUMENTED_EXCEPTIONS } from './exceptions.js';
import type { FileOutcome } from './file-outcome.js';
import { startMoonpoolSuite } from './moonpool-suite.js';
import { nativeLuaProblem, runNative } from './native-lua.js';
import { suiteFiles } from './suite-files.js';

/** Each file's limit, natively and in moonpool (the tool's `timeout`). */
const FILE_TIMEOUT_MS = 120_000;

interface Row {
  file: string;
  native: FileOutcome;
  moonpool: FileOutcome;
}

function verdict(outcome: FileOutcome): string {
  return outcome.passed ? 'pass' : 'FAIL';
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

function printTable(rows: Row[]): void {
  const lines = [['file', 'native', 'time', 'moonpool', 'time', 'first failure (native | moonpool)']];
  for (const { file, native, moonpool } of rows) {
    const failures = [native.failure, moonpool.failure].some(Boolean)
      ? `${native.failure || '-'} | ${moonpool.failure || '-'}`
      : '';
    lines.push([file, verdict(native), seconds(native.ms), verdict(moonpool), seconds(moonpool.ms), failures]);
  }
  const widths = lines[0]!.map((_, column) => Math.max(...lines.map((line) => line[column]!.length)));
  for (const line of lines)
    console.log(
      line
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
}

async function main(argv: string[]): Promise<number> {
  const verbose = argv.includes('--verbose');
  const [dirArgument, ...only] = argv.filter((arg) => arg !== '--verbose');
  if (dirArgument === undefined) {
    console.error('usage: npm run conformance -- DIR [FILE...] [--verbose]   (DIR: the Lua 5.4 test suite)');
    return 2;
  }
  const problem = nativeLuaProblem();
  if (problem) {
    console.error(`conformance: ${problem}; the native control is required`);
    return 2;
  }
  const dir = resolve(process.env['INIT_CWD'] ?? process.cwd(), dirArgument);
  const files = suiteFiles(dir, only);
  const suite = await startMoonpoolSuite(dir, files, FILE_TIMEOUT_MS);
  const rows: Row[] = [];
  try {
    for (const file of files) {
      rows.push({ file, native: await runNative(dir, file, FILE_TIMEOUT_MS), moonpool: await suite.run(file) });
    }
  } finally {
    await suite.close();
  }
  printTable(rows);
  const regressions = rows.filter((row) => row.native.passed && !row.moonpool.passed);
  let failed = false;
  for (const { file, moonpool } of regressions) {
    const reason = DOCUMENTED_EXCEPTIONS[file];
    if (reason) console.log(`\n${file}: documented exception: ${reason}`);
    else failed = true;
    if (verbose || !reason) console.log(`\n${file} fails only in moonpool:\n${moonpool.detail}`);
  }
  const passing = rows.filter((row) => row.moonpool.passed).length;
  console.log(
    `\nmoonpool passes ${passing} of ${rows.length} files; native passes ${rows.filter((row) => row.native.passed).length}.`,
  );
  return failed ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
