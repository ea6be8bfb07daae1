// `moonpool call`'s live block on a stand-in terminal: drawn from the block model while the call
// runs (spinner, the render of the latest snapshot at the terminal's width), log lines above it,
// and erased when the call ends so that only the result stays.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RenderResult, ToolHost } from '../core/index.js';
import { LiveBlock, type BlockTerminal } from '../ui/live-block.js';
import { SPINNER_FRAMES } from '../ui/block-view.js';
import { eventually, startHost } from './helpers.js';

/** A terminal 50 columns wide that keeps everything written to it. */
function recordingTerminal(): BlockTerminal & { written: string } {
  const terminal = {
    columns: 50,
    written: '',
    write(text: string): boolean {
      terminal.written += text;
      return true;
    },
  };
  return terminal;
}

const host = await startHost('snapshots');

test('the running block shows a spinner and the render of the latest snapshot at the terminal width less one', async () => {
  const terminal = recordingTerminal();
  const live = new LiveBlock(terminal, host, 'spin_showing');
  const result = await host.call(
    'spin_showing',
    { seconds: 0.6 },
    { onSnapshot: (snapshot) => live.setSnapshot(snapshot) },
  );
  const rendered = await eventually(() => terminal.written.includes('  spinning at width 47\n'), 5000);
  live.finish();
  assert.ok(rendered, JSON.stringify(terminal.written));
  assert.equal(result.status, 'ok');
  const header = new RegExp(`^[${SPINNER_FRAMES.join('')}] spin_showing  \\d+\\.\\d s$`, 'm');
  assert.match(terminal.written, header);
});

test('a log line is written above the block, and finishing erases the block', async () => {
  const terminal = recordingTerminal();
  const live = new LiveBlock(terminal, host, 'waits');
  const drawn = await eventually(() => terminal.written.includes('waits'), 5000);
  live.log('hello\x1b[2J');
  live.finish();
  assert.ok(drawn, 'the block was never drawn');
  const erase = '\r\x1b[1A\x1b[J';
  const [before, after] = terminal.written.split(`${erase}hello\n`);
  assert.ok(before !== undefined && after !== undefined, JSON.stringify(terminal.written));
  assert.match(after, /^[^\n]*waits[^\n]*\n/);
  assert.ok(after.endsWith(erase), JSON.stringify(after));
});

test('a render still in flight when the call ends never draws the block again', async () => {
  // A stand-in host whose render answers only when told, so the call ends while it is in flight.
  const terminal = recordingTerminal();
  let answer: (result: RenderResult) => void = () => undefined;
  let asked = false;
  const slowHost = {
    render: () => {
      asked = true;
      return new Promise<RenderResult>((resolve) => (answer = resolve));
    },
  } as unknown as ToolHost;
  const live = new LiveBlock(terminal, slowHost, 'slow');
  live.setSnapshot(new Uint8Array([0x80]));
  assert.ok(await eventually(() => asked, 5000), 'render was never asked for');
  live.finish();
  const erasedAt = terminal.written.length;
  answer({ ok: true, lines: ['late'] });
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.equal(terminal.written.slice(erasedAt), '', 'the block was drawn after the call ended');
});
