// Errors name the whole path of the user's file, however deep it sits: Lua cuts chunk names past
// 60 characters, and the worker writes them whole again (workers/chunk-names.ts).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CLI, FIXTURES, startHost, tempDir } from './helpers.js';

/** A directory whose path is over 150 characters long, holding a copy of `fixture`. */
function deepCopy(fixture: string): string {
  const segments = ['a-rather-long-directory-name-for-a-team', 'agent-tooling-configuration-repository', 'moonpool-configs-live-here', 'one-more-level-to-be-sure'];
  const dir = join(realpathSync(tempDir('moonpool-long-')), ...segments, fixture);
  assert.ok(dir.length > 150, `the test directory is only ${dir.length} characters long`);
  mkdirSync(dir, { recursive: true });
  cpSync(join(FIXTURES, fixture), dir, { recursive: true });
  return dir;
}

describe('errors from a config over 150 characters deep', async () => {
  const dir = deepCopy('long-paths');
  const init = join(dir, 'init.lua');
  const module = join(dir, 'lua', 'deep_module.lua');
  const host = await startHost(dir);

  test('a runtime error names init.lua by its whole path and line', async () => {
    const result = await host.call('fails_here', {});
    assert.equal(result.status, 'error');
    assert.ok(result.content.startsWith(`${init}:10: failed in init`), result.content);
  });

  test('a traceback through a required module names every frame by its whole path', async () => {
    const result = await host.call('fails_in_module', {});
    assert.equal(result.status, 'error');
    const [message, ...frames] = result.content.split('\n');
    assert.equal(message, `${module}:5: failed in the module`);
    const locations = frames.map((line) => line.trim()).filter((line) => line.startsWith('/')).map((line) => line.split(': in ')[0]);
    assert.deepEqual(locations.slice(0, 4), [`${module}:5`, `${module}:8`, `${module}:11`, `${init}:17`]);
    assert.ok(!result.content.includes('...'), result.content);
  });

  test('a ctx:show error names the line of the call by its whole path', async () => {
    const result = await host.call('shows_a_function', {});
    assert.equal(result.status, 'error');
    assert.ok(result.content.startsWith(`${init}:25: ctx:show: state.callback is a function`), result.content);
  });

  test('a traceback printed to the log names the module by its whole path', async () => {
    const lines: string[] = [];
    const result = await host.call('prints_a_traceback', {}, { onLog: (text) => lines.push(text) });
    assert.equal(result.content, 'printed');
    assert.ok(lines.some((line) => line.trim().startsWith(`${module}:16:`)), lines.join('\n'));
  });

  test('concurrently, a healthy tool of the same module keeps answering', async () => {
    const results = await Promise.all([host.call('fails_in_module', {}), host.call('healthy', {}), host.call('fails_here', {}), host.call('healthy', {})]);
    assert.deepEqual(
      results.map((result) => result.status),
      ['error', 'ok', 'error', 'ok'],
    );
    assert.equal(results[1].content, 'fine');
  });
});

test('moonpool check names a syntax error by the whole path of a deep config', () => {
  const dir = deepCopy('long-paths-syntax');
  const run = spawnSync(process.execPath, [CLI, 'check', '--config', dir, '--state-dir', tempDir()], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 1, run.stderr);
  assert.ok(run.stdout.startsWith(`${join(dir, 'init.lua')}:6: '}' expected`), run.stdout);
});
