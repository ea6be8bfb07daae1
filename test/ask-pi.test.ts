// ctx:ask inside pi (`moonpool/pi`), against the real pi package with pi-ai's faux provider: a
// choice goes to pi's selector with the default first, a confirm to pi's confirm dialog, a
// dismissed selector declines; in print mode (no UI) the question takes its default.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fauxAssistantMessage, fauxToolCall } from '@mariozechner/pi-ai';
import type { AgentSessionEvent } from '@mariozechner/pi-coding-agent';
import { FIXTURES, tempDir } from './helpers.js';
import { openPiSession, runPiPrint, type PiSession } from './pi-session.js';

const CONFIG = join(FIXTURES, 'ask', 'init.lua');
process.env['MOONPOOL_CONFIG'] = CONFIG;
process.env['XDG_STATE_HOME'] = tempDir('moonpool-pi-state-');

type ToolEnd = Extract<AgentSessionEvent, { type: 'tool_execution_end' }>;

async function answerOf(session: PiSession, tool: string, args: object = {}): Promise<string> {
  const id = `ask-${tool}-${session.events.length}`;
  await session.prompt([fauxAssistantMessage([fauxToolCall(tool, args, { id })], { stopReason: 'toolUse' })]);
  const end = (await session.nextEvent(
    (event) => event.type === 'tool_execution_end' && event.toolCallId === id,
  )) as ToolEnd;
  return (end.result as { content: { text: string }[] }).content.map((block) => block.text).join('');
}

test("a choice is pi's selector, the default first; a dismissed selector declines", async () => {
  const selected: { title: string; options: string[] }[] = [];
  let pick: string | undefined = 'blue';
  const session = await openPiSession({
    dialogs: {
      select: (title, options) => (selected.push({ title, options }), Promise.resolve(pick)),
      confirm: () => Promise.resolve(true),
    },
  });
  assert.equal(await answerOf(session, 'pick'), 'answer: blue');
  assert.deepEqual(selected, [{ title: 'pick: Which colour?', options: ['green', 'red', 'blue'] }]);
  pick = undefined;
  assert.equal(await answerOf(session, 'pick'), 'no answer: declined');
});

test("a confirm is pi's confirm dialog", async () => {
  const confirmed: string[] = [];
  const session = await openPiSession({
    dialogs: {
      select: () => Promise.resolve(undefined),
      confirm: (title, message) => (confirmed.push(`${title} / ${message}`), Promise.resolve(false)),
    },
  });
  assert.equal(await answerOf(session, 'delete', { default: true }), 'answer: false');
  assert.deepEqual(confirmed, ['delete asks / Delete 3 files?']);
});

test("in pi's print mode no one is asked: the question takes its default", { timeout: 60_000 }, () => {
  const run = runPiPrint({
    MOONPOOL_FAUX_SCRIPT: JSON.stringify([
      { tool: 'pick', args: {} },
      { tool: 'pick_no_default', args: {} },
    ]),
  });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /the tool said: answer: green \| no answer: unavailable/);
});
