// Diagnostics as compilers print them: `file:line: message`, paths relative to the current
// directory when they lie inside it, warnings marked, and a syntax error's likely cause added
// when Lua's message names none (a missing comma or `}`), also for one in a module the config
// requires.
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import type { Diagnostic } from '../core/index.js';
import { syntaxHint } from '../core/syntax-hint.js';

/** Source files larger than this are not read for a hint. */
const MAX_HINT_SOURCE_BYTES = 1024 * 1024;

/**
 * A syntax error in a module the config requires comes inside require's message, on its last
 * line: `error loading module 'x' from file '…/x.lua':` then `\t/abs/x.lua:5: '}' expected … near …`.
 */
const NESTED_ERROR = /^\s*(\/.*?):(\d+): (.*)$/;

/** The likely cause (a missing comma or `}`) of Lua's `message` at `line` of `file`, or ''. */
function hintFor(file: string, line: number, message: string): string {
  try {
    const source = readFileSync(file);
    return source.length > MAX_HINT_SOURCE_BYTES ? '' : syntaxHint(message, source.toString('utf8'), line);
  } catch {
    return '';
  }
}

function likelyCause(diagnostic: Diagnostic): string {
  const lastLine = diagnostic.message.lastIndexOf('\n');
  const nested = lastLine === -1 ? null : NESTED_ERROR.exec(diagnostic.message.slice(lastLine + 1));
  if (nested && / expected .*near /.test(nested[3]!)) return hintFor(nested[1]!, Number(nested[2]), nested[3]!);
  if (diagnostic.file && diagnostic.line && / expected .*near /.test(diagnostic.message))
    return hintFor(diagnostic.file, diagnostic.line, diagnostic.message);
  return '';
}

export function displayPath(file: string, cwd = process.cwd()): string {
  const local = relative(cwd, file);
  return local && !local.startsWith('..') && !isAbsolute(local) ? local : file;
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  return formatDiagnosticIn(diagnostic, process.cwd());
}

/** `file:line: message`, the path relative to `dir` when it lies inside it. */
export function formatDiagnosticIn(diagnostic: Diagnostic, dir: string): string {
  const where = diagnostic.file
    ? `${displayPath(diagnostic.file, dir)}${diagnostic.line ? `:${diagnostic.line}` : ''}: `
    : '';
  const severity = diagnostic.severity === 'warning' ? 'warning: ' : '';
  return `${where}${severity}${diagnostic.message}${likelyCause(diagnostic)}`;
}
