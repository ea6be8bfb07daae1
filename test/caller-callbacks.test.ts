// A caller's callbacks (CallOptions: onLog, onTitle, onSnapshot, onQueued, onStart) are the
// caller's code: one that throws, or returns a promise that rejects, loses only its own news —
// the call's result, the host process and the next call are unharmed.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const CONFIG = `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'chatty',
    description = 'Prints, titles, shows (its last state coalesced into the result) and answers.',
    run = function(args, ctx)
      print('a line')
      ctx:title('chatting')
      ctx:show { done = 1, total = 2 }
      os.execute('sleep 0.3')
      ctx:show { done = 2, total = 3 }
      ctx:show { done = 3, total = 3 }
      return 'done'
    end,
  }
end)
`;

const failing = {
  throw: (): void => {
    throw new Error('the caller’s callback failed');
  },
  reject: async (): Promise<void> => {
    await Promise.resolve();
    throw new Error('the caller’s callback failed');
  },
};

for (const [how, callback] of Object.entries(failing)) {
  test(`callbacks that ${how === 'throw' ? 'throw' : 'return a rejected promise'} lose only their own news`, async () => {
    const file = join(tempDir(), 'init.lua');
    writeFileSync(file, CONFIG);
    // One worker: the second call waits behind the first, so it is told its place and its start.
    const host = await startHost(file, { maxThreadsPerModule: 1 });
    const options = {
      onLog: callback,
      onTitle: callback,
      onSnapshot: callback,
      onQueued: callback,
      onStart: callback,
    };
    const results = await Promise.all([host.call('chatty', {}, options), host.call('chatty', {}, options)]);
    assert.deepEqual(
      results.map(({ status, content }) => [status, content]),
      [
        ['ok', 'done'],
        ['ok', 'done'],
      ],
    );
    // Rejections settle after the calls: give them their turn before the host is used again.
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await host.call('chatty', {})).content, 'done');
  });
}
