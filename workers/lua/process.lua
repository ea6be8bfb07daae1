-- moonpool prelude, part 3: `io.popen` and `os.execute`, as in native Lua 5.4, over the process
-- natives (process-natives.ts). A popen handle is a pipe: reads wait for the command's output as
-- it comes (without blocking the worker), writes reach the command as they are flushed.
local native = __moonpool_native

-- A native that waits gives a promise of a ticket for its values.
local function await(promise)
  return native.process_take(promise:await())
end

-- Native Lua's `luaL_execresult`: exit code 0 is success; a signal that ended the shell is reported as one.
local function exit_status(code, signal)
  if signal then return nil, 'signal', signal end
  if code == 0 then return true, 'exit', 0 end
  return nil, 'exit', code
end

-- Starts `command` for `caller` ('io.popen', 'os.execute'), raising at the tool's line if it cannot.
local function start(caller, command, mode)
  if type(command) == 'number' then command = tostring(command) end
  if type(command) ~= 'string' then
    local name = caller:match('%.(.*)')
    error(("bad argument #1 to '%s' (string expected, got %s)"):format(name, type(command)), 3)
  end
  if command:find('\0', 1, true) then error(caller .. ': the command contains a NUL byte', 3) end
  native.check_can_wait(caller)
  local id, problem = await(native.process_start(command, mode))
  if not id then error(caller .. ': ' .. problem, 3) end
  return id
end

local Pipe = { __name = 'FILE*' }
Pipe.__index = Pipe

local function check_open(pipe, method)
  if getmetatable(pipe) ~= Pipe then
    error(("bad argument #1 to '%s' (FILE* expected, got %s)"):format(method, type(pipe)), 3)
  end
  if pipe.closed then error('attempt to use a closed file', 3) end
end

function Pipe:__tostring()
  if self.closed then return 'file (closed)' end
  return ('file (popen %d)'):format(self.id)
end

-- Reading: `buffer` holds what arrived and is unread from `at` on. Readers take what is buffered
-- before waiting for more, so the buffer is empty whenever it grows and a long read costs one copy.

-- Waits for the next output of the command; false once it closed its stdout.
local function more(pipe)
  if pipe.finished then return false end
  native.check_can_wait('io.popen')
  local chunk = await(native.process_read(pipe.id))
  if not chunk then
    pipe.finished = true
    return false
  end
  pipe.buffer, pipe.at = pipe.buffer:sub(pipe.at) .. chunk, 1
  return true
end

local function unread(pipe)
  return #pipe.buffer - pipe.at + 1
end

local function take(pipe, count)
  local piece = pipe.buffer:sub(pipe.at, pipe.at + count - 1)
  pipe.at = pipe.at + #piece
  return piece
end

local function read_line(pipe, keep_newline)
  local newline = pipe.buffer:find('\n', pipe.at, true)
  if newline then
    local line = pipe.buffer:sub(pipe.at, keep_newline and newline or newline - 1)
    pipe.at = newline + 1
    return line
  end
  local parts = {}
  while true do
    local newline = pipe.buffer:find('\n', pipe.at, true)
    if newline then
      parts[#parts + 1] = pipe.buffer:sub(pipe.at, keep_newline and newline or newline - 1)
      pipe.at = newline + 1
      return table.concat(parts)
    end
    if unread(pipe) > 0 then parts[#parts + 1] = take(pipe, unread(pipe)) end
    if not more(pipe) then
      if #parts == 0 then return nil end
      return table.concat(parts)
    end
  end
end

local function read_count(pipe, count)
  if count <= 0 then
    if unread(pipe) == 0 and not more(pipe) then return nil end
    return ''
  end
  local parts, needed = {}, count
  while needed > 0 and (unread(pipe) > 0 or more(pipe)) do
    local piece = take(pipe, needed)
    parts[#parts + 1] = piece
    needed = needed - #piece
  end
  if #parts == 0 then return nil end
  return table.concat(parts)
end

local function read_all(pipe)
  local parts = {}
  repeat
    parts[#parts + 1] = take(pipe, unread(pipe))
  until not more(pipe)
  return table.concat(parts)
end

-- The next character, waiting for it; nil at the end of the output.
local function peek(pipe)
  if unread(pipe) == 0 and not more(pipe) then return nil end
  return pipe.buffer:sub(pipe.at, pipe.at)
end

-- Native Lua's `read_number`, shared with files (io.lua's `scan_number`).
local function read_number(pipe)
  return native.scan_number(function() return peek(pipe) end, function() pipe.at = pipe.at + 1 end)
end

local function read_format(pipe, format, i, blame)
  if type(format) == 'number' then return read_count(pipe, format) end
  local kind = type(format) == 'string' and format:gsub('^%*', ''):sub(1, 1)
  if kind == 'l' then return read_line(pipe, false) end
  if kind == 'L' then return read_line(pipe, true) end
  if kind == 'n' then return read_number(pipe) end
  if kind == 'a' then return read_all(pipe) end
  error(("bad argument #%d to '%s' (invalid format)"):format(blame.first + i, blame.name), blame.level + 1)
end

-- `blame` says how a bad format is reported: as argument `first + i` of `name`, at `level` (counted from `read`).
local function read(pipe, blame, ...)
  if pipe.mode ~= 'r' then return nil, 'Bad file descriptor', 9 end
  local count = select('#', ...)
  if count == 0 then return read_line(pipe, false) end
  if count == 1 then
    local value = read_format(pipe, ..., 1, blame)
    return value
  end
  local results = {}
  for i = 1, count do
    local value = read_format(pipe, (select(i, ...)), i, blame)
    results[i] = value
    if value == nil then return table.unpack(results, 1, i) end
  end
  return table.unpack(results, 1, count)
end

-- `read` is tail-called by `Pipe:read`, so its caller's caller is level 2; the iterator calls it.
local READ_BLAME = { name = 'read', first = 0, level = 2 }
local ITERATOR_BLAME = { name = 'for iterator', first = 1, level = 3 }

function Pipe:read(...)
  check_open(self, 'read')
  return read(self, READ_BLAME, ...)
end

function Pipe:lines(...)
  check_open(self, 'lines')
  local formats = table.pack(...)
  -- As native Lua's iterator: at the end, no values at all.
  local function results(first, ...)
    if first == nil then return end
    return first, ...
  end
  return function()
    if self.closed then error('file is already closed', 2) end
    return results(read(self, ITERATOR_BLAME, table.unpack(formats, 1, formats.n)))
  end
end

-- Writing: `pending` collects what was written until it is flushed to the command.
local FLUSH_BYTES = 65536

local function flush(pipe)
  if #pipe.pending == 0 then return true end
  local data = table.concat(pipe.pending)
  pipe.pending, pipe.pending_bytes = {}, 0
  native.check_can_wait('io.popen')
  return await(native.process_write(pipe.id, data))
end

function Pipe:write(...)
  check_open(self, 'write')
  if self.mode ~= 'w' then return nil, 'Bad file descriptor', 9 end
  local newline = false
  for i = 1, select('#', ...) do
    local value = select(i, ...)
    if math.type(value) == 'float' then
      value = ('%.14g'):format(value)
    elseif type(value) == 'number' then
      value = tostring(value)
    elseif type(value) ~= 'string' then
      error(("bad argument #%d to 'write' (string expected, got %s)"):format(i, type(value)), 2)
    end
    self.pending[#self.pending + 1] = value
    self.pending_bytes = self.pending_bytes + #value
    newline = newline or value:find('\n', 1, true) ~= nil
  end
  if self.buffering == 'no' or (self.buffering == 'line' and newline) or self.pending_bytes >= FLUSH_BYTES then
    local ok, message, code = flush(self)
    if not ok then return nil, message, code end
  end
  return self
end

function Pipe:flush()
  check_open(self, 'flush')
  return flush(self)
end

local BUFFERINGS = { no = true, full = true, line = true }

function Pipe:setvbuf(mode)
  check_open(self, 'setvbuf')
  if not BUFFERINGS[mode] then
    error(("bad argument #1 to 'setvbuf' (invalid option '%s')"):format(tostring(mode)), 2)
  end
  self.buffering = mode
  return true
end

local WHENCES = { set = true, cur = true, ['end'] = true }

function Pipe:seek(whence, offset)
  check_open(self, 'seek')
  whence = whence or 'cur'
  if not WHENCES[whence] then
    error(("bad argument #1 to 'seek' (invalid option '%s')"):format(tostring(whence)), 2)
  end
  if offset ~= nil and math.type(offset) ~= 'integer' then
    error(("bad argument #2 to 'seek' (number has no integer representation)"), 2)
  end
  return nil, 'Illegal seek', 29
end

-- As `pclose`: flushes, closes the pipe and waits for the command to exit.
function Pipe:close()
  check_open(self, 'close')
  native.check_can_wait('io.popen')
  if self.mode == 'w' then flush(self) end
  self.closed = true
  local done, code, signal = await(native.process_finish(self.id))
  if not done then return nil, code end
  return exit_status(code, signal)
end

Pipe.__close = function(pipe)
  if not pipe.closed then pipe:close() end
end

-- Collected unclosed: the pipes are let go at once; the command ends with the call at the latest.
Pipe.__gc = function(pipe)
  if not pipe.closed then native.process_forget(pipe.id) end
end

function io.popen(command, mode)
  mode = mode or 'r'
  if mode ~= 'r' and mode ~= 'w' then error("bad argument #2 to 'popen' (invalid mode)", 2) end
  local id = start('io.popen', command, mode == 'r' and 'read' or 'write')
  return setmetatable({ id = id, mode = mode, buffer = '', at = 1, pending = {}, pending_bytes = 0, buffering = 'full' }, Pipe)
end

function os.execute(command)
  if command == nil then return true end
  local id = start('os.execute', command, 'execute')
  local _, code, signal = await(native.process_finish(id))
  return exit_status(code, signal)
end

local file_type = io.type

function io.type(value)
  if getmetatable(value) == Pipe then return value.closed and 'closed file' or 'file' end
  return file_type(value)
end

local close_file = io.close

function io.close(...)
  local file = ...
  if select('#', ...) > 0 and getmetatable(file) == Pipe then return file:close() end
  return close_file(...)
end
