// The documentation's own links hold: every relative link in README.md, CONTRIBUTING.md and
// docs/**/*.md names a file of the repository, and a `#anchor` names a heading of the page it
// points to. The README stays short enough to read at once (at most README_MAX_LINES lines).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { ROOT, tempDir } from './helpers.js';

const README_MAX_LINES = 200;

/** The Markdown files whose links are checked, relative to `root`. */
function documentationFiles(root: string): string[] {
  const files = ['README.md', 'CONTRIBUTING.md'].filter((file) => existsSync(join(root, file)));
  const walk = (dir: string): void => {
    if (!existsSync(join(root, dir))) return;
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) files.push(path);
    }
  };
  walk('docs');
  return files;
}

/** The lines of `text` outside fenced code blocks, with inline code spans blanked out. */
function proseLines(text: string): { line: number; text: string }[] {
  const lines: { line: number; text: string }[] = [];
  let fence: string | undefined;
  text.split('\n').forEach((raw, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return;
    }
    if (fence === undefined)
      lines.push({ line: index + 1, text: raw.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length)) });
  });
  return lines;
}

/** Every link target written in `text`: inline `[text](target)` and reference definitions `[id]: target`. */
function linkTargets(text: string): { line: number; target: string }[] {
  const targets: { line: number; target: string }[] = [];
  for (const { line, text: prose } of proseLines(text)) {
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
      targets.push({ line, target: match[1]! });
    const definition = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(prose);
    if (definition) targets.push({ line, target: definition[1]! });
  }
  return targets;
}

/** The anchors GitHub gives the headings of a Markdown page (lower case, punctuation dropped, spaces as `-`, repeats numbered). */
function headingAnchors(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const raw of text.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(raw)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      continue;
    }
    const heading = fence === undefined ? /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw)?.[1] : undefined;
    if (heading === undefined) continue;
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*~]/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every broken relative link of the documentation under `root`, as `file:line: target: why`. */
function brokenLinks(root: string): string[] {
  const problems: string[] = [];
  const realRoot = resolve(root);
  for (const file of documentationFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const { line, target } of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const where = `${file}:${line}: ${target}`;
      const hash = target.indexOf('#');
      const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
      const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const resolved = pathPart === '' ? join(realRoot, file) : resolve(realRoot, dirname(file), pathPart);
      if (resolved !== realRoot && !resolved.startsWith(realRoot + sep)) {
        problems.push(`${where}: points outside the repository`);
        continue;
      }
      if (!existsSync(resolved)) {
        problems.push(`${where}: no such file (${relative(realRoot, resolved)})`);
        continue;
      }
      if (
        anchor !== undefined &&
        anchor !== '' &&
        resolved.endsWith('.md') &&
        !headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)
      ) {
        problems.push(`${where}: no heading #${anchor} in ${relative(realRoot, resolved)}`);
      }
    }
  }
  return problems;
}

test('every relative link in README.md, CONTRIBUTING.md and docs/ resolves, anchors included', () => {
  assert.deepEqual(brokenLinks(ROOT), []);
});

test('README.md has at most 200 lines', () => {
  const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
  assert.ok(
    lines <= README_MAX_LINES,
    `README.md has ${lines} lines; at most ${README_MAX_LINES}: move detail into docs/`,
  );
});

test('the link check finds a missing file, a missing heading and a link out of the repository', () => {
  const root = tempDir();
  mkdirSync(join(root, 'docs', 'decisions'), { recursive: true });
  writeFileSync(
    join(root, 'docs', 'page.md'),
    '# A page\n\n## Its `code` heading, twice\n\n## Its `code` heading, twice\n',
  );
  writeFileSync(
    join(root, 'README.md'),
    [
      '# Read me',
      '[fine](docs/page.md#its-code-heading-twice) [again](docs/page.md#its-code-heading-twice-1) [here](#read-me)',
      '[web](https://example.com/missing) `[in code](nowhere.md)`',
      '```',
      '[fenced](nowhere.md)',
      '```',
      '[gone](docs/gone.md) [bad anchor](docs/page.md#no-such-heading)',
      '[up](../../outside.md)',
      '[ref]: docs/also-gone.md',
    ].join('\n'),
  );
  writeFileSync(join(root, 'docs', 'decisions', 'README.md'), '[back](../page.md) [wrong](page.md)\n');
  assert.deepEqual(brokenLinks(root), [
    'README.md:7: docs/gone.md: no such file (docs/gone.md)',
    'README.md:7: docs/page.md#no-such-heading: no heading #no-such-heading in docs/page.md',
    'README.md:8: ../../outside.md: points outside the repository',
    'README.md:9: docs/also-gone.md: no such file (docs/also-gone.md)',
    'docs/decisions/README.md:1: page.md: no such file (docs/decisions/page.md)',
  ]);
});
