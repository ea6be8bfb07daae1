// Load: a thousand calls at once over ten modules, a tenth of them faulty — every call resolves
// exactly once with the status it should have, no call to a healthy tool fails, and no CPU turn
// is left held or waited for (the spinning faults take a turn and are terminated holding it).
// Past a module's queue limit a call is refused as busy at once.
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CallResult } from '../core/index.js';
import { startHost, tempDir } from './helpers.js';

const MODULES = 10;

function writeConfig(): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'lua'));
  const requires: string[] = [];
  for (let m = 0; m < MODULES; m++) {
    writeFileSync(
      join(dir, 'lua', `module_${m}.lua`),
      `agent.on('discover_tools', function(registry)
  registry:add {
    name = 'work_${m}',
    description = 'Sums a range and says so.',
    parameters = { type = 'object', properties = { n = { type = 'integer' } }, required = { 'n' } },
    run = function(args, ctx)
      local sum = 0
      for i = 1, args.n do
        sum = sum + i
        if i % 100 == 0 then ctx:show { i = i } end
      end
      return 'module ${m} sum ' .. sum
    end,
  }
  registry:add {
    name = 'fault_${m}',
    description = 'Fails as args.mode says.',
    parameters = { type = 'object', properties = { mode = { type = 'string' } }, required = { 'mode' } },
    run = function(args, ctx)
      if args.mode == 'error' then error('planned failure') end
      if args.mode == 'nil' then return nil end
      return { content = 'reported', is_error = true }
    end,
  }
  registry:add {
    name = 'spin_${m}',
    description = 'Takes a CPU turn, then spins until its timeout cuts it off.',
    timeout = 0.5,
    run = function(args, ctx)
      local started = os.clock()
      while os.clock() - started < 0.05 do ctx:show { phase = 'taking a turn' } end
      while true do end
    end,
  }
  registry:add {
    name = 'slow_${m}',
    description = 'Takes a while.',
    run = function(args, ctx)
      local stop = os.clock() + 0.3
      while os.clock() < stop do ctx:show { phase = 'slow' } end
      return 'slow done'
    end,
  }
end)
`,
    );
    requires.push(`require('module_${m}')`);
  }
  writeFileSync(join(dir, 'init.lua'), `${requires.join('\n')}\n`);
  return join(dir, 'init.lua');
}

test('1,000 concurrent calls over 10 modules, 10% faulty: each resolves once with its status; no healthy call fails', async () => {
  const host = await startHost(writeConfig(), { maxThreadsPerModule: 2, maxQueuePerModule: 200, cpuSlots: 2 });
  const modes = ['error', 'spin', 'nil', 'reported'] as const;
  const expected: { status: CallResult['status']; content?: string }[] = [];
  const calls: Promise<CallResult>[] = [];
  for (let i = 0; i < 1000; i++) {
    const m = i % MODULES;
    if (i % 10 === 3) {
      const mode = modes[((i / 10) % modes.length) | 0]!;
      expected.push({ status: mode === 'spin' ? 'timeout' : 'error' });
      calls.push(mode === 'spin' ? host.call(`spin_${m}`, {}) : host.call(`fault_${m}`, { mode }));
    } else {
      const n = 1000 + i;
      expected.push({ status: 'ok', content: `module ${m} sum ${(n * (n + 1)) / 2}` });
      calls.push(host.call(`work_${m}`, { n }));
    }
  }
  let settled = 0;
  const results = await Promise.all(calls.map((call) => call.then((result) => (settled++, result))));
  assert.equal(settled, 1000);
  assert.equal(new Set(results.map((result) => result.callId)).size, 1000);
  results.forEach((result, i) => {
    assert.equal(result.status, expected[i]!.status, `call ${i}: ${result.content}`);
    if (expected[i]!.content !== undefined) assert.equal(result.content, expected[i]!.content);
  });
  assert.deepEqual(host.stats().cpu, { slots: 2, running: 0, waiting: 0 });
});

test('past the queue limit a call is refused as busy at once, and the queued ones still finish', async () => {
  const host = await startHost(writeConfig(), { maxThreadsPerModule: 1, maxQueuePerModule: 3 });
  await host.call('work_0', { n: 1 });
  const settled: CallResult['status'][] = [];
  const results = await Promise.all(
    Array.from({ length: 12 }, () => host.call('slow_0', {}).then((result) => (settled.push(result.status), result))),
  );
  const busy = results.filter((result) => result.status === 'busy');
  const done = results.filter((result) => result.status === 'ok');
  assert.ok(busy.length > 0 && done.length > 0, results.map((result) => result.status).join(' '));
  assert.equal(busy.length + done.length, 12);
  assert.match(
    busy[0]!.content,
    /slow_0: too many calls waiting \(the limit is 3\); try again when some have finished/,
  );
  // At once: every refusal comes before the first queued call has finished.
  assert.deepEqual(settled.slice(0, busy.length), Array<string>(busy.length).fill('busy'), settled.join(' '));
});
