// Diagnostics as compilers print them: `file:line: message`, paths relative to the current
// directory when they lie inside it, warnings marked, and a syntax error's likely cause added
// when Lua's message names none (a missing comma).
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { missingCommaHint, type Diagnostic } from '../core/index.js';

/** Source files larger than this are not read for a hint. */
const MAX_HINT_SOURCE_BYTES = 1024 * 1024;

function likelyCause(diagnostic: Diagnostic): string {
  if (!diagnostic.file || !diagnostic.line || !/ expected .*near /.test(diagnostic.message)) return '';
  try {
    const source = readFileSync(diagnostic.file);
    return source.length > MAX_HINT_SOURCE_BYTES
      ? ''
      : missingCommaHint(diagnostic.message, source.toString('utf8'), diagnostic.line);
  } catch {
    return '';
  }
}

export function displayPath(file: string, cwd = process.cwd()): string {
  const local = relative(cwd, file);
  return local && !local.startsWith('..') && !isAbsolute(local) ? local : file;
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = diagnostic.file
    ? `${displayPath(diagnostic.file)}${diagnostic.line ? `:${diagnostic.line}` : ''}: `
    : '';
  const severity = diagnostic.severity === 'warning' ? 'warning: ' : '';
  return `${where}${severity}${diagnostic.message}${likelyCause(diagnostic)}`;
}
