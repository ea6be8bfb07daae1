-- moonpool prelude, part 1: the shell helpers of the tool author's API.
-- `capture` awaits its child without blocking the worker; the core knows every child's pid.
local native = __moonpool_native

function shquote(value)
  local kind = type(value)
  if kind == 'number' then
    value = tostring(value)
  elseif kind ~= 'string' then
    error(("shquote: expected a string, got %s"):format(kind), 2)
  end
  if value:find('\0', 1, true) then
    error('shquote: the string contains a NUL byte, which no shell word can hold', 2)
  end
  return "'" .. value:gsub("'", "'\\''") .. "'"
end

function capture(command)
  if type(command) ~= 'string' then
    error(("capture: expected a command string, got %s"):format(type(command)), 2)
  end
  if command:find('\0', 1, true) then
    error('capture: the command contains a NUL byte', 2)
  end
  local id = native.capture(command):await()
  local output, code = native.capture_result(id)
  return (output:gsub('\n+$', '')), code
end
