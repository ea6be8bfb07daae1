// What a dashboard block shows beside the tool's render: the model-facing text of a call that did
// not end ok, under the render; with Ctrl-O, the text of every finished call and what it printed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, startHost } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

const CTRL_O = '\x0f';

const host = await startHost('block-results');

/** The screen's text without blessed's tags. */
const untagged = (text: string): string => text.replace(/\{\/?[a-z-]+\}/g, '');

test("a failed call's error, file:line and traceback, shows under its render", async () => {
  const { dashboard, terminal, screen } = virtualDashboard(host, 100, 30);
  const shown = (): string => untagged(screen());
  terminal.type('fails_late {}\r');
  // The text shows first, the render (and the result under it) once it arrives.
  assert.ok(await eventually(() => shown().includes('-- result --'), 10_000), shown());
  const block = shown().slice(shown().indexOf('✗ fails_late'));
  assert.match(
    block,
    /^✗ fails_late {2}error .*\n {2}step 1 of 3\n {2}-- result --\n {2}\S*init\.lua:\d+: disk on fire\n/,
  );
  assert.match(block, /stack traceback:/);
  await dashboard.quit();
});

test('an ok call shows only its render collapsed, and the text the model got under it when expanded', async () => {
  const { dashboard, terminal, screen } = virtualDashboard(host, 100, 30);
  const shown = (): string => untagged(screen());
  terminal.type('greet {"name": "Ada"}\r');
  assert.ok(await eventually(() => /✓ greet .*\n {2}greeted Ada/.test(shown()), 10_000), shown());
  assert.doesNotMatch(shown(), /Hello, Ada!|-- result --/);
  terminal.type(CTRL_O);
  assert.ok(await eventually(() => shown().includes('Hello, Ada!'), 10_000), shown());
  assert.match(shown(), /✓ greet .*\n {2}greeted Ada\n {2}-- result --\n {2}Hello, Ada!/);
  await dashboard.quit();
});

test('an expanded block keeps what the call printed, its last lines when it printed many; collapsed, only the text', async () => {
  const { dashboard, terminal, screen } = virtualDashboard(host, 100, 80);
  const shown = (): string => untagged(screen());
  terminal.type('printer {}\r');
  assert.ok(await eventually(() => /✓ printer .*\n {2}done/.test(shown()), 10_000), shown());
  assert.doesNotMatch(shown(), /debug: line/);
  terminal.type(CTRL_O);
  assert.ok(await eventually(() => shown().includes('debug: line 2'), 10_000), shown());
  assert.match(shown(), /✓ printer .*\n {2}done\n {2}-- log --\n {2}debug: line 1\n {2}debug: line 2/);
  terminal.type('printer {"lines": 60}\r');
  assert.ok(await eventually(() => shown().includes('-- log: the last 50 of 60 lines --'), 10_000), shown());
  assert.match(shown(), /✓ printer .*\n {2}done\n {2}-- log: the last 50 of 60 lines --\n {2}debug: line 11\n/);
  await dashboard.quit();
});
