// The block model the dashboard, `replay` and the live block share: one spinner that turns with the
// elapsed time, one collapse rule that bounds a block's height whatever its note says, one render
// view, and the same rows in every view.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  COLLAPSED_BODY_LINES,
  SPINNER_FRAME_MS,
  SPINNER_FRAMES,
  blockHeader,
  plainBlockLines,
  renderView,
  type BlockFacts,
} from '../ui/block-view.js';
import { Block } from '../ui/dashboard/block.js';
import { blockLines } from '../ui/dashboard/block-lines.js';
import { columns } from '../ui/text-width.js';

const finished = (content: string, rendered?: BlockFacts['rendered']): BlockFacts => ({
  kind: 'call',
  state: 'ok',
  tool: 'sh',
  title: 'ls',
  elapsedMs: 1234,
  content,
  rendered,
});
const thirtyLines = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n');

/** A dashboard line without blessed's tags (what the terminal shows). */
const untagged = (line: string): string => line.replace(/\{\/?[a-z-]+\}/g, '');

test('the spinner turns with the elapsed time, one frame every SPINNER_FRAME_MS', () => {
  const running = (elapsedMs: number): string => blockHeader({ ...finished(''), state: 'running', elapsedMs }, 80).mark;
  assert.equal(running(0), SPINNER_FRAMES[0]);
  assert.equal(running(SPINNER_FRAME_MS - 1), SPINNER_FRAMES[0]);
  assert.equal(running(SPINNER_FRAME_MS), SPINNER_FRAMES[1]);
  assert.equal(running(SPINNER_FRAME_MS * SPINNER_FRAMES.length), SPINNER_FRAMES[0]);
});

test('the dashboard and the plain views draw a block with the same rows', () => {
  const block = new Block(1, 'call', 'sh', 0);
  block.title = 'ls';
  block.finish({ status: 'error', content: `${thirtyLines}\n${'中'.repeat(50)}`, durationMs: 1234 });
  const facts: BlockFacts = { ...finished(block.content), state: 'error' };
  for (const expand of [false, true]) {
    const dashboard = blockLines(block, { width: 40, expand, now: 0, color: true }).map(untagged);
    const plain = plainBlockLines(facts, { width: 40, expand, expandHint: 'Ctrl-O shows all' });
    assert.deepEqual(dashboard, plain);
  }
});

test('a collapsed block whose render failed with a long reason stays COLLAPSED_BODY_LINES rows under its header', () => {
  const facts = finished(thirtyLines, { ok: false, reason: `render failed: ${'x'.repeat(5000)}` });
  const lines = plainBlockLines(facts, { width: 60, expand: false, expandHint: '--expand shows all' });
  assert.equal(lines.length, 1 + COLLAPSED_BODY_LINES);
  assert.ok(
    lines.every((line) => columns(line) <= 60),
    JSON.stringify(lines),
  );
  assert.match(lines.at(-3)!, /… 25 more lines \(--expand shows all\)/);
  assert.equal(lines.at(-2), '  (render failed:');
  assert.match(lines.at(-1)!, /^ {2}x+…$/);
  const expanded = plainBlockLines(facts, { width: 60, expand: true });
  assert.ok(expanded.join('').includes('showing the text instead)'));
});

test('a collapsed block with a short note keeps the note whole and gives the rest to the text', () => {
  const lines = plainBlockLines(finished(thirtyLines, { ok: false, reason: 'render broke' }), {
    width: 60,
    expand: false,
  });
  assert.equal(lines.length, 1 + COLLAPSED_BODY_LINES);
  assert.deepEqual(lines.slice(-2), ['  … 24 more lines', '  (render broke; showing the text instead)']);
});

test('a note is never collapsed', () => {
  const note: BlockFacts = { kind: 'note', state: 'ok', tool: 'tools', elapsedMs: 0, content: thirtyLines };
  assert.equal(plainBlockLines(note, { width: 60, expand: false }).length, 1 + 30);
});

test('the render view is the body: the block width less the indent, COLLAPSED_BODY_LINES high unless expanded', () => {
  assert.deepEqual(renderView({ width: 80, expand: false }), {
    width: 78,
    height: COLLAPSED_BODY_LINES,
    expand: false,
  });
  assert.deepEqual(renderView({ width: 80, expand: true }), { width: 78, height: 1000, expand: true });
});

test('the plain header is cut to the width even when the tool name alone is wider', () => {
  const facts: BlockFacts = { ...finished('ok'), tool: 't'.repeat(100) };
  const [header] = plainBlockLines(facts, { width: 30, expand: false });
  assert.equal(columns(header!), 30);
  assert.ok(header!.endsWith('…'));
});

test("a collapsed failed call keeps its error's first rows under a long render, and an ok one shows only the render", () => {
  const render: BlockFacts['rendered'] = { ok: true, lines: thirtyLines.split('\n') };
  const failed: BlockFacts = { ...finished('init.lua:5: disk on fire\nstack traceback:', render), state: 'error' };
  const lines = plainBlockLines(failed, { width: 60, expand: false, expandHint: 'Ctrl-O shows all' });
  assert.equal(lines.length, 1 + COLLAPSED_BODY_LINES);
  assert.deepEqual(lines.slice(1), [
    '  line 0',
    '  line 1',
    '  line 2',
    '  line 3',
    '  … 26 more lines (Ctrl-O shows all)',
    '  -- result --',
    '  init.lua:5: disk on fire',
    '  stack traceback:',
  ]);
  const ok = plainBlockLines(finished('the text', render), { width: 60, expand: false });
  assert.ok(!ok.some((line) => line.includes('result') || line.includes('the text')), JSON.stringify(ok));
  const expanded = plainBlockLines(finished('the text', render), { width: 60, expand: true });
  assert.deepEqual(expanded.slice(-3), ['  line 29', '  -- result --', '  the text']);
});
