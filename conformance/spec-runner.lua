-- A small busted-style spec runner in plain Lua, so that a library's own specs run natively
-- (`lua5.4 spec-runner.lua spec/a_spec.lua ...`) and inside moonpool (a tool that sets `arg` and
-- runs this file) alike. It provides what busted specs commonly use: describe/it/pending,
-- before_each/after_each, setup/teardown, finally, spy.new, and luassert's equal, same, is_true,
-- is_false, is_nil, has_error/error and error_matches, spy(...).called(n). Each spec file runs
-- insulated, as busted's default: globals and package.loaded are restored after it. It prints one
-- line per test, with no address or timing in it, so two runs compare line for line, and ends
-- with os.exit(true) when every test passed, os.exit(false) otherwise.
local files = arg or {}

-- Busted's default package.path additions for a library laid out with src/.
package.path = './src/?.lua;./src/?/?.lua;./src/?/init.lua;' .. package.path

local real_assert, pack = assert, table.pack

-- What a value looks like in a message: strings quoted, tables by their contents (keys sorted,
-- three levels deep), never an address.
local function show(value, depth)
  local kind = type(value)
  if kind == 'string' then return string.format('%q', value) end
  if kind == 'function' or kind == 'userdata' or kind == 'thread' then return 'a ' .. kind end
  if kind ~= 'table' then return tostring(value) end
  depth = depth or 0
  if depth >= 3 then return '{...}' end
  local keys = {}
  for key in pairs(value) do keys[#keys + 1] = key end
  table.sort(keys, function(a, b)
    if type(a) ~= type(b) then return type(a) < type(b) end
    if type(a) == 'number' or type(a) == 'string' then return a < b end
    return false
  end)
  local parts = {}
  for _, key in ipairs(keys) do
    parts[#parts + 1] = ('[%s] = %s'):format(show(key, depth + 1), show(value[key], depth + 1))
  end
  return '{ ' .. table.concat(parts, ', ') .. ' }'
end

local function without_addresses(text)
  return (tostring(text):gsub('0x%x+', '0x?'))
end

local Failure = {}
local function fail(message, level)
  error(setmetatable({ message = message }, Failure), (level or 1) + 1)
end

-- luassert's deep comparison: same keys and deeply equal values, metatables aside.
local function same(a, b, seen)
  if a == b then return true end
  if type(a) ~= 'table' or type(b) ~= 'table' then return false end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for key, value in pairs(a) do
    if not same(value, rawget(b, key), seen) then return false end
  end
  for key in pairs(b) do
    if rawget(a, key) == nil then return false end
  end
  return true
end

-- The text of an error value as luassert compares it: a string loses its 'file:line: ' prefix.
local function error_text(err)
  if type(err) == 'string' then return (err:gsub('^.-:%d+: ', '', 1)) end
  return err
end

local function raised(fn, ...)
  if type(fn) ~= 'function' then fail('expected a function, got ' .. show(fn), 3) end
  local ok, err = pcall(fn, ...)
  if ok then fail('expected an error, none was raised', 3) end
  return err
end

local checks = {}

function checks.equal(expected, actual)
  if expected ~= actual then fail(('expected %s, got %s'):format(show(expected), show(actual)), 2) end
end

function checks.same(expected, actual)
  if not same(expected, actual) then fail(('expected %s, got %s'):format(show(expected), show(actual)), 2) end
end

function checks.is_true(value)
  if value ~= true then fail('expected true, got ' .. show(value), 2) end
end

function checks.is_false(value)
  if value ~= false then fail('expected false, got ' .. show(value), 2) end
end

function checks.is_nil(value)
  if value ~= nil then fail('expected nil, got ' .. show(value), 2) end
end

function checks.has_error(fn, expected)
  local err = error_text(raised(fn))
  if expected ~= nil and not same(expected, err) then
    fail(('expected the error %s, got %s'):format(show(expected), show(err)), 2)
  end
end

function checks.error_matches(fn, pattern)
  local err = raised(fn)
  if type(err) ~= 'string' or not err:find(pattern) then
    fail(('expected an error matching %s, got %s'):format(show(pattern), show(err)), 2)
  end
end

checks.equals, checks.are_equal, checks.are_same, checks.error, checks.has_errors = checks.equal, checks.equal, checks.same, checks.has_error, checks.has_error

function checks.spy(s)
  return {
    called = function(count)
      if #s.calls ~= count then fail(('expected %d calls, got %d'):format(count, #s.calls), 2) end
    end,
  }
end

-- `assert` stays Lua's assert when called, and holds luassert's checks, under `are`/`is` too.
local function new_assert()
  local chain = setmetatable({}, { __index = checks })
  chain.are, chain.is, chain.was = chain, chain, chain
  return setmetatable(chain, {
    __index = checks,
    __call = function(_, ...) return real_assert(...) end,
  })
end

local function new_spy(fn)
  local s = { calls = {} }
  return setmetatable(s, {
    __call = function(_, ...)
      s.calls[#s.calls + 1] = pack(...)
      if fn then return fn(...) end
    end,
  })
end

-- The tree of blocks the spec files declare, then run in declaration order.
local function new_block(name, parent)
  return { name = name, parent = parent, children = {}, before = {}, after = {}, setup = {}, teardown = {} }
end

local current, current_test
local passed, failed, pending_count = 0, 0, 0

local function full_name(block, name)
  local parts = { name }
  while block and block.name do
    table.insert(parts, 1, block.name)
    block = block.parent
  end
  return table.concat(parts, ' ')
end

local function message_of(err)
  if getmetatable(err) == Failure then return err.message end
  return without_addresses(err)
end

local function run_hooks(block, field, outer_first)
  local chain = {}
  while block do
    table.insert(chain, outer_first and 1 or #chain + 1, block)
    block = block.parent
  end
  for _, b in ipairs(chain) do
    for _, hook in ipairs(b[field]) do hook() end
  end
end

local function run_test(block, test)
  current_test = { finally = {} }
  local ok, err = pcall(function()
    run_hooks(block, 'before', true)
    test.fn()
  end)
  local after_ok, after_err = pcall(run_hooks, block, 'after', false)
  for _, cleanup in ipairs(current_test.finally) do pcall(cleanup) end
  current_test = nil
  if ok and not after_ok then ok, err = false, after_err end
  local name = full_name(block, test.name)
  if ok then
    passed = passed + 1
    print('ok ' .. name)
  else
    failed = failed + 1
    print('FAIL ' .. name .. ': ' .. message_of(err))
  end
end

local function run_block(block)
  for _, hook in ipairs(block.setup) do hook() end
  for _, child in ipairs(block.children) do
    if child.pending then
      pending_count = pending_count + 1
      print('pending ' .. full_name(block, child.name))
    elseif child.fn then
      run_test(block, child)
    else
      run_block(child)
    end
  end
  for _, hook in ipairs(block.teardown) do hook() end
end

local api = {}

function api.describe(name, fn)
  local block = new_block(name, current)
  current.children[#current.children + 1] = block
  local outer = current
  current = block
  fn()
  current = outer
end
api.context = api.describe

function api.it(name, fn)
  current.children[#current.children + 1] = { name = name, fn = fn, pending = fn == nil }
end

function api.pending(name)
  current.children[#current.children + 1] = { name = name, pending = true }
end

function api.before_each(fn) current.before[#current.before + 1] = fn end
function api.after_each(fn) current.after[#current.after + 1] = fn end
function api.setup(fn) current.setup[#current.setup + 1] = fn end
function api.teardown(fn) current.teardown[#current.teardown + 1] = fn end
api.lazy_setup, api.lazy_teardown = api.setup, api.teardown

function api.finally(fn)
  real_assert(current_test, 'finally outside a test')
  current_test.finally[#current_test.finally + 1] = fn
end

api.spy = { new = new_spy }

local function copy(source)
  local result = {}
  for key, value in pairs(source) do result[key] = value end
  return result
end

-- Runs one spec file insulated: what it adds to _G and package.loaded is gone afterwards.
local function run_file(path)
  local globals, loaded = copy(_G), copy(package.loaded)
  for name, value in pairs(api) do _G[name] = value end
  _G.assert = new_assert()
  current = new_block(nil, nil)
  local chunk, problem = loadfile(path)
  local ok, err = chunk ~= nil, problem
  if chunk then ok, err = pcall(chunk) end
  if ok then
    ok, err = pcall(run_block, current)
  end
  if not ok then
    failed = failed + 1
    print('FAIL ' .. path .. ' (loading): ' .. message_of(err))
  end
  for key in pairs(_G) do
    if globals[key] == nil then _G[key] = nil end
  end
  for key, value in pairs(globals) do _G[key] = value end
  for key in pairs(package.loaded) do
    if loaded[key] == nil then package.loaded[key] = nil end
  end
end

for i = 1, #files do run_file(files[i]) end
print(('%d passed, %d failed, %d pending'):format(passed, failed, pending_count))
os.exit(failed == 0)
