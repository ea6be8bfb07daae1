// A `run` that raises closes its to-be-closed variables where they can wait, as native Lua does:
// a popen handle's close waits for its command, a `__close` may call `capture`, `os.execute` or
// `ctx:ask`, and the call's error is still the tool's own, with its file:line.
import assert from 'node:assert/strict';
import { existsSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const dir = realpathSync(tempDir('moonpool-close-on-error-'));
const config = join(dir, 'init.lua');
writeFileSync(
  config,
  `agent.on('discover_tools', function(registry)
  registry:add { name = 'popen_closed', description = 'x', run = function()
    local command <close> = io.popen('sleep 0.2; echo done > popen-done')
    error('the popen error')
  end }
  registry:add { name = 'capture_in_close', description = 'x', run = function()
    local closer <close> = setmetatable({}, { __close = function() print('closing', capture('echo captured')) end })
    error('the capture error')
  end }
  registry:add { name = 'execute_in_close', description = 'x', run = function()
    local closer <close> = setmetatable({}, { __close = function() print('executed', os.execute('true')) end })
    error('the execute error')
  end }
  registry:add { name = 'ask_in_close', description = 'x', run = function(_, ctx)
    local closer <close> = setmetatable({}, { __close = function() print('asked', ctx:ask { question = 'q?', confirm = true }) end })
    error('the ask error')
  end }
end)
`,
);
const host = await startHost(config, { cwd: dir });

/** The call's result and what it printed. */
async function call(name: string): Promise<{ status: string; content: string; log: string[] }> {
  const log: string[] = [];
  const result = await host.call(name, {}, { onLog: (line) => log.push(line) });
  return { status: result.status, content: result.content, log };
}

function firstLine(text: string): string {
  return text.split('\n')[0]!;
}

describe('a run that raises with a to-be-closed variable whose close waits', () => {
  test('a popen handle is closed as pclose closes it, and the error is the tool’s', async () => {
    const result = await call('popen_closed');
    assert.equal(result.status, 'error');
    assert.deepEqual(result.content.split('\n').slice(0, 2), [`${config}:4: the popen error`, 'stack traceback:']);
    assert.ok(existsSync(join(dir, 'popen-done')), 'the close waited for the command');
  });

  test('a __close calling capture, os.execute or ctx:ask runs it, and the error is the tool’s', async () => {
    const captured = await call('capture_in_close');
    assert.equal(captured.status, 'error');
    assert.equal(firstLine(captured.content), `${config}:8: the capture error`);
    assert.deepEqual(captured.log, ['closing\tcaptured\t0']);
    const executed = await call('execute_in_close');
    assert.equal(firstLine(executed.content), `${config}:12: the execute error`);
    assert.deepEqual(executed.log, ['executed\ttrue\texit\t0']);
    const asked = await call('ask_in_close');
    assert.equal(firstLine(asked.content), `${config}:16: the ask error`);
    assert.deepEqual(asked.log, ['asked\tnil\tunavailable']);
  });
});
