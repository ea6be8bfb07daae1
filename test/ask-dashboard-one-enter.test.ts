// Two calls waiting on questions in the dashboard: one Enter answers one question (the oldest),
// never both; the other stays in its block until its own Enter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, startHost } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

// Fails: blessed reports one \r as both `return` and `enter`, and the dashboard answers the oldest
// question on each (ui/dashboard/dashboard.ts, answerKey), so the second takes the next question's
// default.
test('one Enter answers one question, not every question waiting', async () => {
  const host = await startHost('ask-hostile');
  const { dashboard, terminal, screen, input } = virtualDashboard(host, 100, 40);
  try {
    terminal.type('remove {"path":"/a","wait":1}\r');
    assert.ok(await eventually(() => input() === ''), screen());
    terminal.type('remove {"path":"/b","wait":1}\r');
    assert.ok(await eventually(() => screen().includes('Remove /a?') && screen().includes('Remove /b?')), screen());
    terminal.type('y\r');
    assert.ok(await eventually(() => screen().includes('remove /a: answer: boolean true')), screen());
    assert.match(screen(), /Remove \/b\?/, 'the second question still waits');
    assert.doesNotMatch(screen(), /remove \/b:/);
    terminal.type('\r');
    assert.ok(await eventually(() => screen().includes('remove /b: answer: boolean false')), screen());
  } finally {
    await dashboard.quit();
  }
});
