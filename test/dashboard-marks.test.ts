// The marks of the dashboard's notes on loading the config: ✓ when it loaded with nothing to
// report, ⚠ when it loaded with problems (tools left out), ✗ when it did not load — at start and
// for each reload.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually, startHost, tempDir } from './helpers.js';
import { virtualDashboard } from './virtual-dashboard.js';

/** The screen's text without blessed's tags. */
const untagged = (text: string): string => text.replace(/\{\/?[a-z-]+\}/g, '');

/** The welcome note's first line, once painted, for the config `config`. */
async function welcomeHeader(config: string): Promise<string> {
  const { dashboard, lines } = virtualDashboard(await startHost(config), 100, 30);
  assert.ok(await eventually(() => lines().length > 0, 10_000), 'nothing was painted');
  const header = untagged(lines()[0]!);
  await dashboard.quit();
  return header;
}

test('the welcome is ✓ for a clean config, ⚠ for one with errors, ✗ for one that did not load', async () => {
  assert.equal(await welcomeHeader('block-results'), '✓ moonpool');
  assert.equal(await welcomeHeader('broken'), '⚠ moonpool');
  assert.equal(await welcomeHeader('missing-comma'), '✗ moonpool');
});

test('a reload that left a tool out for an error is ⚠, one that failed ✗, a clean one ✓', async () => {
  const dir = tempDir();
  const config = join(dir, 'init.lua');
  const tool = (name: string, extra = ''): string =>
    `registry:add { name = '${name}', description = 'd', permissions = {}, run = function() return 'x' end${extra} }\n`;
  const write = (body: string): void =>
    writeFileSync(config, `agent.on('discover_tools', function(registry)\n${body}end)\n`);
  write(tool('one') + tool('two'));
  const { dashboard, terminal, screen } = virtualDashboard(await startHost(config), 100, 40);
  const shown = (): string => untagged(screen());
  const reload = async (mark: string, text: string): Promise<void> => {
    terminal.type('/clear\r/reload\r');
    assert.ok(await eventually(() => shown().includes(text), 10_000), shown());
    assert.match(shown(), new RegExp(`^${mark} reload\\n`, 'm'));
  };
  write(tool('one') + tool('two', ', timout = 5'));
  await reload('⚠', 'removed two');
  write(tool('one') + 'registry:add { name = }\n');
  await reload('✗', 'reload failed');
  write(tool('one') + tool('two'));
  await reload('✓', 'added two');
  await dashboard.quit();
});
