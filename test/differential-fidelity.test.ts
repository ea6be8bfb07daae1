// Differential tests of what hostile snippets found to differ from native Lua: warnings raised by
// Lua itself, line-buffered files, the standard streams' seek. Each snippet runs natively with
// lua5.4 and inside moonpool, and both must print the same lines (test/differential.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Differential } from './differential.js';

const differential = await Differential.start();

const same = (source: string): Promise<void> => differential.same(source);

describe('warnings', () => {
  test("Lua's own warnings (an error in __gc) follow warn's @on and @off", async () => {
    const { nativeErrors, moonpool } = await differential.run(`
local function failing_finalizer(err)
  do local _ = setmetatable({}, { __gc = function() error(err) end }) end
  collectgarbage(); collectgarbage()
end
failing_finalizer('hidden: warnings start off')
warn('@on')
failing_finalizer('gc boom')
failing_finalizer({})
warn('@off')
failing_finalizer('hidden again')
warn('@on')
warn('done')
`);
    assert.ok(nativeErrors.length > 0);
    assert.deepEqual(moonpool, nativeErrors);
  });

  test('a control message is one argument only while a warning is not being continued', async () => {
    const { nativeErrors, moonpool } = await differential.run(`
warn('@off')
warn('x', '@on')
warn('on now')
warn('@off', 'y')
warn('still on')
`);
    assert.ok(nativeErrors.length > 0);
    assert.deepEqual(moonpool, nativeErrors);
  });
});

describe('buffering', () => {
  test("setvbuf('line') writes up to the last newline and keeps the rest", () =>
    same(`
local f = assert(io.open('line-buffered.txt', 'w'))
f:setvbuf('line')
local function on_disk() return ('%q'):format(io.open('line-buffered.txt'):read('a')) end
f:write('ab\\ncd'); print(on_disk())
f:write('ef\\ngh'); print(on_disk())
f:write('ij', 'k\\nl', 'm'); print(on_disk())
f:write('\\n'); print(on_disk())
f:close(); print(on_disk())
`));
});

describe('standard streams', () => {
  test('stdout and stderr cannot seek, as on a pipe', () =>
    same(`
print(io.stdout:seek())
print(io.stderr:seek('set', 0))
print(io.stdout:seek('end'))
`));
});

describe("debug's local functions", () => {
  test("see and set a tool's own locals, in every form, and fail as natively", () =>
    same(`
local outer = 'out'
local function inner(a, ...)
  local b = 'bee'
  print(debug.getlocal(1, 1)); print(debug.getlocal(1, 2)); print(debug.getlocal(1, -1)); print(debug.getlocal(1, 9))
  print(debug.getlocal(2, 1)); print(debug.setlocal(2, 1, 'set'))
  print(debug.setlocal(1, 2, 'changed'), b); print(debug.getlocal('1', 1)); print(debug.getlocal(1.0, 1))
  print(pcall(debug.getlocal, 99, 1)); print(pcall(debug.getlocal, 1.5, 1)); print(pcall(debug.setlocal, 99, 1, 0))
  print(pcall(function() debug.getlocal({}, 1) end)); print(pcall(function() debug.setlocal(50, 1, 0) end))
end
inner('ay', 'va')
print(outer)
print(debug.getlocal(inner, 1)); print(debug.getlocal(inner, 2)); print(debug.getlocal(print, 1))
local co = coroutine.create(function(x) local y = x * 2; coroutine.yield() end)
coroutine.resume(co, 21)
print(debug.getlocal(co, 1, 1)); print(debug.getlocal(co, 1, 2)); print(debug.setlocal(co, 1, 2, 0)); print(debug.getlocal(co, 1, 2))
print(pcall(debug.getlocal, co, 5, 1))
print(coroutine.wrap(function(z) return debug.getlocal(coroutine.running(), 1, 1) end)('zed'))
`));
});

describe("debug's upvalue functions", () => {
  test('answer and fail as natively; a library function has no upvalues to show', () =>
    same(`
local up = 5
local function g() return up end
print(debug.getupvalue(g, 1)); print(debug.setupvalue(g, 1, 7), up); print(type(debug.upvalueid(g, 1)))
print(pcall(debug.getupvalue, 5, 1)); print(select('#', debug.getupvalue(g, 9))); print(pcall(debug.upvalueid, g, 9))
print(pcall(function() debug.getupvalue('x', 1) end))
print(pcall(function() debug.upvaluejoin(g, 1, io.write, 1) end))
print(pcall(debug.upvaluejoin, g, 1, print, 1))
print(debug.getupvalue(io.write, 1)); print(debug.upvalueid(io.write, 1)); print(debug.setupvalue(require, 1, 0))
`));
});
