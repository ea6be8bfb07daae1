-- moonpool prelude, part 1: the shell helpers of the tool author's API.
-- `capture` awaits its command without blocking the worker (process-natives.ts).
local native = __moonpool_native
-- The prelude's own references, taken before user code runs (see io.lua).
local str_byte, str_find, str_format, str_gsub, str_sub = string.byte, string.find, string.format, string.gsub, string.sub
local type, tostring, error, pairs = type, tostring, error, pairs

function shquote(value)
  local kind = type(value)
  if kind == 'number' then
    value = tostring(value)
  elseif kind ~= 'string' then
    error(str_format("shquote: expected a string, got %s", kind), 2)
  end
  if str_find(value, '\0', 1, true) then
    error('shquote: the string contains a NUL byte, which no shell word can hold', 2)
  end
  return "'" .. str_gsub(value, "'", "'\\''") .. "'"
end

local getinfo = debug.getinfo
-- Lua's own, before api.lua replaces it: whether the running thread can yield, that is whether
-- no C function (string.gsub, table.sort, a __tostring under print) lies between it and the tool.
local can_yield = coroutine.isyieldable

-- Raises `message` at the tool's own line: the first frame outside the prelude.
local function raise_at_tool_line(message)
  local level = 2
  while getinfo(level, 'S') and getinfo(level, 'S').source == '=[moonpool]' do level = level + 1 end
  error(message, level)
end

-- Whether the running code can wait (for a command, an answer, a slow FIFO) by yielding the entry
-- thread to the worker: not inside a coroutine of the tool's own (the yield would reach that
-- coroutine's resume), and no C function between it and the tool. io.lua uses it too.
function native.can_wait()
  local _, main = native.running()
  return main and can_yield()
end

-- Raises at the tool's line when the code cannot wait for `what`, before anything starts: a
-- command or a question Lua could not wait for would go on unseen. `caller` names the function.
-- process.lua and ask.lua use it too.
function native.check_can_wait(caller, what)
  local _, main = native.running()
  if not main then
    raise_at_tool_line(str_format('%s: cannot wait for %s inside a coroutine of your own; call it from run (or render, available) itself', caller, what))
  end
  if not can_yield() then
    raise_at_tool_line(str_format('%s: cannot wait for %s inside a C function (a string.gsub or table.sort callback, a metamethod called by one); run it before or after that call', caller, what))
  end
end

local CAPTURE_OPTIONS = { keep = 'boolean' }

-- `capture { 'git', 'log', '-1' }`: a program and its arguments, as strings (numbers turned into
-- them), started without a shell; returned as a new list, so the command cannot change under way.
local function argument_list(command)
  local list, count = {}, #command
  if count == 0 then error('capture: the command list is empty; its first item is the program', 3) end
  for i = 1, count do
    local item = command[i]
    if type(item) == 'number' then item = tostring(item) end
    if type(item) ~= 'string' then error(str_format('capture: command[%d] must be a string, got %s', i, type(item)), 3) end
    if str_find(item, '\0', 1, true) then error(str_format('capture: command[%d] contains a NUL byte', i), 3) end
    list[i] = item
  end
  if list[1] == '' then error('capture: command[1], the program, is empty', 3) end
  return list
end

function capture(command, options)
  if type(command) == 'table' then
    command = argument_list(command)
  elseif type(command) ~= 'string' then
    error(str_format("capture: expected a command string or a list of a program and its arguments, got %s", type(command)), 2)
  elseif str_find(command, '\0', 1, true) then
    error('capture: the command contains a NUL byte', 2)
  end
  if options ~= nil and type(options) ~= 'table' then
    error(str_format("capture: options must be a table, got %s", type(options)), 2)
  end
  for key, value in pairs(options or {}) do
    if CAPTURE_OPTIONS[key] == nil then error(str_format("capture: unknown option '%s'", tostring(key)), 2) end
    if type(value) ~= CAPTURE_OPTIONS[key] then
      error(str_format("capture: option '%s' must be a %s, got %s", key, CAPTURE_OPTIONS[key], type(value)), 2)
    end
  end
  native.check_can_wait('capture', 'a command')
  local mode = options and options.keep and 'capture_kept' or 'capture'
  local id, problem = native.process_start(command, mode)
  if not id then error('capture: ' .. problem, 2) end
  local done, code, signal, output = native.process_finish(id)
  if not done then error('capture: ' .. code, 2) end
  -- Trailing newlines go, as in `$(…)`; found from the end (a pattern would scan all 64 MiB).
  local last = #output
  while str_byte(output, last) == 10 do last = last - 1 end
  return str_sub(output, 1, last), code or 128 + signal
end
