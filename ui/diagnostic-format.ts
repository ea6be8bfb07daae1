// Diagnostics as compilers print them: `file:line: message`, paths relative to the current
// directory when they lie inside it, warnings marked.
import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from '../core/index.js';

export function displayPath(file: string, cwd = process.cwd()): string {
  const local = relative(cwd, file);
  return local && !local.startsWith('..') && !isAbsolute(local) ? local : file;
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where = diagnostic.file ? `${displayPath(diagnostic.file)}${diagnostic.line ? `:${diagnostic.line}` : ''}: ` : '';
  const severity = diagnostic.severity === 'warning' ? 'warning: ' : '';
  return `${where}${severity}${diagnostic.message}`;
}
