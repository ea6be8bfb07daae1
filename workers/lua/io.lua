-- moonpool prelude, part 2: `io`, `os`, `require`, `loadfile`, `dofile` and `print` on the real
-- file system (the wasm build only sees an in-memory one), behaving as Lua 5.4's C libraries do:
-- file handles are `FILE*` userdata, messages and results match liolib/loslib/loadlib.
-- Relative paths resolve against ctx.cwd.
local native = __moonpool_native
local config_dir, config_file = __moonpool_config_dir, __moonpool_config_file
local set_metatable, get_info = debug.setmetatable, debug.getinfo
-- The prelude's own references, taken before user code runs: a tool may replace or remove the
-- library's functions (`string.gmatch = nil`, a patched `string.find`) without breaking `io`.
local math_type, select, type, tostring, error = math.type, select, type, tostring, error
local tonumber, rawget, getmetatable, setmetatable, load, next = tonumber, rawget, getmetatable, setmetatable, load, next
local str_find, str_format, str_gmatch, str_gsub, str_match, str_sub = string.find, string.format, string.gmatch, string.gsub, string.match, string.sub
local tbl_concat, tbl_pack, tbl_unpack = table.concat, table.pack, table.unpack
local math_floor, math_max, math_tointeger, package = math.floor, math.max, math.tointeger, package

local CHUNK_SIZE = 65536
local WHOLE_READ_SIZE = 1048576
-- C stdio's BUFSIZ: a fully buffered file's data reaches it every 8 KiB, as natively.
local DEFAULT_BUFFER_SIZE = 8192
-- liolib's limits: the longest numeral `read('n')` accepts, and the most formats `lines` takes.
local MAX_NUMERAL_LENGTH = 200
local MAX_LINES_FORMATS = 250

print = native.print
warn = native.warn

-- A file handle is a `FILE*` userdata (as in native Lua: `type`, `rawlen` and error messages see a
-- userdata); its state is a record kept here. Reads go through a buffer (`rbuf` from byte `rpos`,
-- starting at file offset `roff`); writes are buffered in `wbuf` and land at `roff` (or the end,
-- in append mode). Every handle is such a record, whatever its bytes' source: a file descriptor,
-- the call's log (stdout, stderr), nothing (stdin), or a command's pipe (process.lua's `io.popen`).
local records = setmetatable({}, { __mode = 'k' })
local methods = {}
local FILE = { __name = 'FILE*', __index = methods }

-- A source: `read(file, offset, size)` gives the next bytes (nil at the end; nil, message, code on
-- failure) and `write(file, data)` true or nil, message, code. Optional: `size` (a positioned
-- source: writes move `roff`, append goes to the end), `seek` (the answer to every seek, for a
-- source that cannot), `close` (its results, when they replace `true`), and `collect` (what the
-- collector does instead of closing, for a source whose closing waits, which a finalizer cannot).
-- A FIFO or device with nothing to read yet (EAGAIN: files open non-blocking), or a FIFO no
-- writer has opened yet (it reads as ended), is read again every POLL_MS, as a blocking read
-- would wait: the worker stays free, so the call's timeout and cancelling still hold. Inside a
-- coroutine of the tool's own, or a C function (a string.gsub or table.sort callback), nothing can
-- wait, and the read answers at once.
local POLL_MS = 10
local EAGAIN = 11
local may_wait = native.can_wait

local function read_descriptor(file, offset, size)
  while true do
    local chunk, message, code = native.fs_read(file.fd, offset, size)
    if chunk or code == EAGAIN then file.writer_seen = true end
    if chunk then return chunk end
    local nothing_yet = code == EAGAIN or (message == nil and not file.writer_seen and native.fs_is_fifo(file.fd))
    if not nothing_yet or not may_wait() then return chunk, message, code end
    native.fs_pause(POLL_MS)
  end
end

-- A FIFO or device whose reader has not caught up (EAGAIN) takes the rest of the data every
-- POLL_MS, as a blocking write would wait; where nothing can wait (see may_wait) it fails at once.
local function write_descriptor(file, data)
  local offset, written = file.append and -1 or file.roff, 0
  while true do
    local ok, message, code
    ok, message, code, written = native.fs_write(file.fd, offset, data, written)
    if ok or code ~= EAGAIN or not may_wait() then return ok, message, code end
    native.fs_pause(POLL_MS)
  end
end

local DESCRIPTOR = {
  read = read_descriptor,
  write = write_descriptor,
  size = function(file) return native.fs_size(file.fd) end,
  close = function(file) native.fs_close(file.fd) end,
}
-- The call's log is a pipe to the standard streams: natively stdout and stderr are a terminal or
-- a pipe, where seeking fails.
local LOG = {
  write = function(_, data)
    native.write_log(data)
    return true
  end,
  seek = function()
    return nil, 'Illegal seek', 29
  end,
}
local NO_INPUT = { read = function() return nil end }

local function new_file(fields)
  fields.rbuf, fields.rpos, fields.roff, fields.wbuf, fields.wlen = '', 1, 0, {}, 0
  fields.buffer_mode, fields.buffer_size = fields.buffer_mode or 'full', DEFAULT_BUFFER_SIZE
  local handle = set_metatable(native.new_handle(), FILE)
  records[handle] = fields
  return handle, fields
end
native.new_file = new_file

-- The name luaL_typeerror gives a value: its metatable's `__name`, else its type.
local function type_name(value)
  local meta = getmetatable(value)
  if type(meta) == 'table' and type(rawget(meta, '__name')) == 'string' then return meta.__name end
  return type(value)
end

-- luaL_argerror for the library function `level` frames up (1: the caller of bad_argument),
-- raised where that function was called. The function is named as its call site names it, else
-- by its global name (`io.write`), else '?'; a method call does not count `self` in `position`.
local function bad_argument(level, position, global_name, message)
  local info = get_info(level + 1, 'n')
  local name = info and info.name
  if info and info.namewhat == 'method' then
    position = position - 1
    if position == 0 then error(str_format("calling '%s' on bad self (%s)", name, message), level + 2) end
  end
  error(str_format("bad argument #%d to '%s' (%s)", position, name or global_name or '?', message), level + 2)
end

-- luaL_typeerror: `present` false says "no value" where there was no argument at all.
local function type_error(level, position, global_name, expected, value, present)
  local got = present == false and 'no value' or type_name(value)
  bad_argument(level + 1, position, global_name, str_format('%s expected, got %s', expected, got))
end

-- The record of an open handle, raising as liolib's `tofile` does, for the library function
-- `level` frames up (default 1: the caller of open_record).
local function open_record(handle, global_name, present, level)
  level = level or 1
  local file = records[handle]
  if not file then type_error(level + 1, 1, global_name, 'FILE*', handle, present) end
  if file.closed then error('attempt to use a closed file', level + 2) end
  return file
end

local function position(file)
  return file.roff + file.rpos - 1
end

local function flush(file)
  if file.wlen == 0 then return true end
  local data = tbl_concat(file.wbuf)
  file.wbuf, file.wlen = {}, 0
  local source = file.source
  local ok, message, code = source.write(file, data)
  if not ok then return nil, message, code end
  if source.size then file.roff = file.append and source.size(file) or file.roff + #data end
  return true
end

-- `write` formats numbers as liolib does: integers with %d, floats with %.14g.
local function written_text(value, position, global_name)
  if type(value) == 'string' then return value end
  if math_type(value) == 'integer' then return str_format('%d', value) end
  if math_type(value) == 'float' then return str_format('%.14g', value) end
  type_error(3, position, global_name, 'string', value)
end

-- Writes the values (`first` is the position of the first among the library function's
-- arguments, for error messages) and returns `handle`.
local function write(file, handle, first, global_name, ...)
  if file.readonly then return nil, 'Bad file descriptor', 9 end
  if #file.rbuf > 0 then
    file.roff, file.rbuf, file.rpos = position(file), '', 1
  end
  local line_done = false
  for i = 1, select('#', ...) do
    local text = written_text((select(i, ...)), first + i - 1, global_name)
    file.wbuf[#file.wbuf + 1] = text
    file.wlen = file.wlen + #text
    line_done = line_done or str_find(text, '\n', 1, true) ~= nil
  end
  local mode = file.buffer_mode
  if mode == 'no' or file.wlen >= file.buffer_size then
    local ok, message, code = flush(file)
    if not ok then return nil, message, code end
  elseif mode == 'line' and line_done then
    -- As C stdio: a line-buffered file gets its data up to the last newline; the rest waits.
    local data = tbl_concat(file.wbuf)
    local last_newline = str_find(data, '\n[^\n]*$')
    file.wbuf, file.wlen = { str_sub(data, 1, last_newline) }, last_newline
    local ok, message, code = flush(file)
    if not ok then return nil, message, code end
    file.wbuf[1], file.wlen = str_sub(data, last_newline + 1), #data - last_newline
  end
  return handle
end

-- Makes sure at least `want` unread bytes are buffered, unless the file ends (false) or a read
-- fails (false, and the error kept in `file.failure` for `read` to return).
local function fill(file, want)
  while #file.rbuf - file.rpos + 1 < want do
    local offset = file.roff + #file.rbuf
    local chunk, message, code = file.source.read(file, offset, CHUNK_SIZE)
    if not chunk then
      if message then file.failure = { message, code } end
      return false
    end
    file.rbuf = str_sub(file.rbuf, file.rpos) .. chunk
    file.roff = offset - (#file.rbuf - #chunk)
    file.rpos = 1
  end
  return true
end

local function take(file, count)
  local piece = str_sub(file.rbuf, file.rpos, file.rpos + count - 1)
  file.rpos = file.rpos + #piece
  return piece
end

-- Readers take what is buffered before filling again, so the buffer is empty whenever it grows:
-- a long line or count costs one copy, not one per chunk (a pipe's chunks may be small).
local function read_line(file, keep_newline)
  local parts = {}
  while true do
    local newline = str_find(file.rbuf, '\n', file.rpos, true)
    if newline then
      parts[#parts + 1] = str_sub(file.rbuf, file.rpos, keep_newline and newline or newline - 1)
      file.rpos = newline + 1
      return tbl_concat(parts)
    end
    local unread = #file.rbuf - file.rpos + 1
    if unread > 0 then parts[#parts + 1] = take(file, unread) end
    if not fill(file, 1) then
      if #parts == 0 then return nil end
      return tbl_concat(parts)
    end
  end
end

local function read_count(file, count)
  if count <= 0 then return fill(file, 1) and '' or nil end
  local parts, needed = {}, count
  while needed > 0 and fill(file, 1) do
    local piece = take(file, needed)
    parts[#parts + 1] = piece
    needed = needed - #piece
  end
  if #parts == 0 then return nil end
  return tbl_concat(parts)
end

-- liolib's `read_number` (`l_getn`): consumes the longest prefix that can start a numeral (one
-- look-ahead byte, at most 200 bytes; past that every byte is refused and the result is fail),
-- then converts it; a failed conversion still consumes those bytes. `peek()` gives the next byte
-- (nil at the end) and `skip()` consumes it.
local function scan_number(peek, skip)
  local numeral, too_long = {}, false
  local current = peek()
  while current and str_find(current, '^%s') do
    skip()
    current = peek()
  end
  local function accept()
    if #numeral >= MAX_NUMERAL_LENGTH then
      too_long = true
      return false
    end
    numeral[#numeral + 1] = current
    skip()
    current = peek()
    return true
  end
  local function test2(set)
    return current ~= nil and str_find(set, current, 1, true) ~= nil and accept()
  end
  local function read_digits(hex)
    local digits = 0
    while current and str_find(current, hex and '^%x' or '^%d') and accept() do digits = digits + 1 end
    return digits
  end
  local count, hex = 0, false
  test2('-+')
  if test2('0') then
    if test2('xX') then hex = true else count = 1 end
  end
  count = count + read_digits(hex)
  if test2('.') then count = count + read_digits(hex) end
  if count > 0 and test2(hex and 'pP' or 'eE') then
    test2('-+')
    read_digits(false)
  end
  if too_long then return nil end
  return tonumber(tbl_concat(numeral))
end

local function read_number(file)
  local function peek()
    if not fill(file, 1) then return nil end
    return str_sub(file.rbuf, file.rpos, file.rpos)
  end
  return scan_number(peek, function() file.rpos = file.rpos + 1 end)
end

local function read_all(file)
  local parts = { str_sub(file.rbuf, file.rpos) }
  local offset = file.roff + #file.rbuf
  while true do
    local chunk, message, code = file.source.read(file, offset, WHOLE_READ_SIZE)
    if not chunk then
      if message then file.failure = { message, code } end
      break
    end
    parts[#parts + 1] = chunk
    offset = offset + #chunk
  end
  file.rbuf, file.rpos, file.roff = '', 1, offset
  return tbl_concat(parts)
end

local function read_one(file, format, position, global_name)
  if math_type(format) == 'integer' or (type(format) == 'number' and format == math_floor(format)) then
    return read_count(file, format)
  end
  local kind = type(format) == 'string' and str_sub((str_gsub(format, '^%*', '')), 1, 1)
  if kind == 'l' then return read_line(file, false) end
  if kind == 'L' then return read_line(file, true) end
  if kind == 'n' then return read_number(file) end
  if kind == 'a' then return read_all(file) end
  bad_argument(3, position, global_name, 'invalid format')
end

local function read(file, first, global_name, ...)
  if file.writeonly then return nil, 'Bad file descriptor', 9 end
  local ok, message, code = flush(file)
  if not ok then return nil, message, code end
  local count = select('#', ...)
  if count == 0 then return read_line(file, false) end
  local results = {}
  for i = 1, count do
    local value = read_one(file, (select(i, ...)), first + i - 1, global_name)
    if file.failure then
      local failure = file.failure
      file.failure = nil
      return nil, failure[1], failure[2]
    end
    results[i] = value
    if value == nil then return tbl_unpack(results, 1, i) end
  end
  return tbl_unpack(results, 1, count)
end

local function close(file)
  if file.standard then return nil, 'cannot close standard file' end
  local ok, message, code = flush(file)
  local closed = tbl_pack()
  if file.source.close then closed = tbl_pack(file.source.close(file)) end
  file.closed = true
  if closed.n > 0 then return tbl_unpack(closed, 1, closed.n) end
  if not ok then return nil, message, code end
  return true
end

-- `fflush(NULL)`: every open file's buffered writes, as `io.popen` does before it starts a command.
function native.flush_all()
  for _, file in next, records do
    if not file.closed and file.wlen > 0 then flush(file) end
  end
end

-- liolib's `aux_lines`/`io_readline`: the iterator reads with the saved formats, raises a read
-- error, and (for io.lines) closes the file at its end.
local function lines_iterator(handle, close_at_end, global_name, ...)
  local formats = tbl_pack(...)
  if formats.n > MAX_LINES_FORMATS then
    bad_argument(2, MAX_LINES_FORMATS + 2, global_name, 'too many arguments')
  end
  return function()
    local file = records[handle]
    if file.closed then error('file is already closed', 2) end
    -- As io_readline's g_read(L, f, 2): the formats count from argument 2.
    local results = tbl_pack(read(file, 2, nil, tbl_unpack(formats, 1, formats.n)))
    if results[1] ~= nil then return tbl_unpack(results, 1, results.n) end
    if results.n > 1 and type(results[2]) == 'string' then error(results[2], 0) end
    if close_at_end then close(file) end
  end
end

-- The library functions below return `results(helper(...))`, never `helper(...)`: a tail call
-- would drop their frame, and the helpers' errors name them by counting frames.
local function results(...)
  return ...
end

function methods.read(handle, ...)
  return results(read(open_record(handle), 2, nil, ...))
end

function methods.write(handle, ...)
  return results(write(open_record(handle), handle, 2, nil, ...))
end

function methods.lines(handle, ...)
  open_record(handle)
  return results(lines_iterator(handle, false, nil, ...))
end

function methods.flush(handle)
  return flush(open_record(handle))
end

-- luaL_checkinteger for the method one frame up from its caller.
local function checked_integer(position, value)
  if math_type(value) == 'integer' then return value end
  local number = math_type(value) and value or type(value) == 'string' and tonumber(value)
  if not number then type_error(2, position, nil, 'number', value) end
  local integer = math_tointeger(number)
  if not integer then bad_argument(2, position, nil, 'number has no integer representation') end
  return integer
end

local SEEK_BASES = { set = true, cur = true, ['end'] = true }

function methods.seek(handle, whence, offset)
  local file = open_record(handle)
  whence, offset = whence or 'cur', offset or 0
  if not SEEK_BASES[whence] then bad_argument(1, 2, nil, str_format("invalid option '%s'", tostring(whence))) end
  offset = checked_integer(3, offset)
  local ok, message, code = flush(file)
  if not ok then return nil, message, code end
  if file.source.seek then return file.source.seek(file) end
  local base = 0
  if whence == 'cur' then base = position(file) end
  if whence == 'end' then base = file.fd and native.fs_size(file.fd) or (file.roff + #file.rbuf) end
  local target = base + offset
  if target < 0 then return nil, 'Invalid argument', 22 end
  if file.fd then
    file.roff, file.rbuf, file.rpos = target, '', 1
  else
    file.rpos = target - file.roff + 1
  end
  return target
end

local BUFFER_MODES = { no = true, full = true, line = true }

function methods.setvbuf(handle, mode, size)
  local file = open_record(handle)
  if not BUFFER_MODES[mode] then bad_argument(1, 2, nil, str_format("invalid option '%s'", tostring(mode))) end
  if size ~= nil then size = checked_integer(3, size) end
  -- The standard streams stay unbuffered here: their lines are assembled on the way to the log,
  -- and nothing would flush them at the end of a call.
  if file.standard then return true end
  file.buffer_mode, file.buffer_size = mode, math_max(1, size or DEFAULT_BUFFER_SIZE)
  return true
end

function methods.close(...)
  local handle = ...
  return close(open_record(handle, nil, select('#', ...) > 0))
end

function FILE.__tostring(handle)
  local file = records[handle]
  if file.closed then return 'file (closed)' end
  return str_format('file (%s)', file.path or file.kind)
end

-- Closing by scope or by the collector, as liolib's `f_gc`: a handle already closed is left alone.
-- The record of a handle still to close, or nil; raising as liolib does for what is not a handle.
local function unclosed_record(handle, present)
  local file = records[handle]
  if not file then type_error(2, 1, nil, 'FILE*', handle, present) end
  if file.closed or file.standard then return nil end
  return file
end

function FILE.__close(...)
  local file = unclosed_record(..., select('#', ...) > 0)
  if file then close(file) end
end

function FILE.__gc(...)
  local file = unclosed_record(..., select('#', ...) > 0)
  if not file then return end
  if file.source.collect then
    file.source.collect(file)
    file.closed = true
  else
    close(file)
  end
end

-- l_checkmode: one of r, w, a; an optional '+'; then only 'b's.
local function valid_mode(mode)
  return type(mode) == 'string' and str_find(mode, '^[rwa]%+?b*$') ~= nil
end

local function open(path, mode)
  mode = mode or 'r'
  if type(path) ~= 'string' and math_type(path) == nil then type_error(1, 1, 'io.open', 'string', path) end
  if type(mode) ~= 'string' and math_type(mode) == nil then type_error(1, 2, 'io.open', 'string', mode) end
  if not valid_mode(tostring(mode)) then bad_argument(1, 2, 'io.open', 'invalid mode') end
  path = tostring(path)
  local base = str_gsub(mode, 'b+$', '')
  local fd, message, code = native.fs_open(path, base)
  if not fd then return nil, message, code end
  local first = str_sub(base, 1, 1)
  local handle, file = new_file {
    source = DESCRIPTOR, fd = fd, path = path, kind = 'file',
    append = first == 'a',
    readonly = base == 'r',
    writeonly = (first == 'w' or first == 'a') and not str_find(base, '+', 1, true),
  }
  -- As fopen: 'a' starts at the end, 'a+' reads from the beginning (every write goes to the end).
  if file.append and file.writeonly then file.roff = native.fs_size(fd) end
  return handle
end

local function output_sink(name)
  return (new_file { source = LOG, kind = name, standard = true, writeonly = true, buffer_mode = 'no' })
end

io = {}
io.stdin = (new_file { source = NO_INPUT, kind = 'stdin', standard = true, readonly = true })
io.stdout = output_sink('stdout')
io.stderr = output_sink('stderr')
local default_input, default_output = io.stdin, io.stdout

io.open = open

function io.type(value)
  local file = records[value]
  if not file then return nil end
  return file.closed and 'closed file' or 'file'
end

-- liolib's `opencheckfile`: the file or an error naming it, raised where `level` frames up was called.
local function open_checked(path, mode, level)
  path = tostring(path)
  local opened, message = open(path, mode)
  if not opened then error(str_format("cannot open file '%s' (%s)", path, str_sub(message, #path + 3)), level + 2) end
  return opened
end

local function default_file(global_name, file, mode)
  if file == nil then return nil end
  if type(file) == 'string' or math_type(file) then
    local opened = open_checked(file, mode, 2)
    return opened
  end
  open_record(file, global_name, true, 2)
  return file
end

function io.input(file)
  default_input = default_file('io.input', file, 'r') or default_input
  return default_input
end

function io.output(file)
  default_output = default_file('io.output', file, 'w') or default_output
  return default_output
end

local function default_record(handle, which)
  local file = records[handle]
  if file.closed then error(str_format('default %s file is closed', which), 3) end
  return file
end

function io.read(...) return results(read(default_record(default_input, 'input'), 1, 'io.read', ...)) end
function io.write(...) return results(write(default_record(default_output, 'output'), default_output, 1, 'io.write', ...)) end
function io.flush() return flush(default_record(default_output, 'output')) end

function io.close(...)
  if select('#', ...) == 0 then return close(default_record(default_output, 'output')) end
  return close(open_record(..., 'io.close'))
end

function io.lines(path, ...)
  if path == nil then
    open_record(default_input, 'io.lines')
    return lines_iterator(default_input, false, 'io.lines', ...)
  end
  if type(path) ~= 'string' and not math_type(path) then type_error(1, 1, 'io.lines', 'string', path) end
  local handle = open_checked(path, 'r', 1)
  return lines_iterator(handle, true, 'io.lines', ...), nil, nil, handle
end

-- As C's tmpfile: the file is removed as soon as it is open (its descriptor keeps it until closed),
-- so nothing is left behind, however the call ends.
function io.tmpfile()
  local path = native.fs_tmpname()
  local handle, message, code = open(path, 'w+')
  native.fs_remove(path)
  return handle, message, code
end

-- luaL_checkstring for a library function one frame up from its caller: a string, or a number as a string.
local function checked_string(position, global_name, present, value)
  if type(value) == 'string' then return value end
  if math_type(value) then return tostring(value) end
  type_error(2, position, global_name, 'string', value, present)
end
native.checked_string = checked_string
native.type_error, native.bad_argument = type_error, bad_argument

function os.getenv(...)
  return results(native.getenv(checked_string(1, 'os.getenv', select('#', ...) > 0, (...))))
end

function os.remove(...)
  return results(native.fs_remove(checked_string(1, 'os.remove', select('#', ...) > 0, (...))))
end

function os.rename(...)
  local from, to = ...
  from = checked_string(1, 'os.rename', select('#', ...) > 0, from)
  return results(native.fs_rename(from, checked_string(2, 'os.rename', select('#', ...) > 1, to)))
end

-- Calls a C function of Lua's library that the prelude wraps, so that its errors are raised as
-- if the wrapper were that function: an argument error names it as its call site does (else by
-- `global_name`), and every error points at the wrapper's caller, never into the prelude.
local function call_wrapped(global_name, fn, ...)
  local outcome = tbl_pack(pcall(fn, ...))
  if outcome[1] then return tbl_unpack(outcome, 2, outcome.n) end
  local message = outcome[2]
  local position, detail = str_match(message, "^bad argument #(%d+) to '[^']*' %((.*)%)$")
  if position then bad_argument(2, tonumber(position), global_name, detail) end
  error(message, 3)
end

-- `os.exit(code)` ends the call, as it would end a script: api.lua's `run` recognises the value
-- raised here. Codes as loslib takes them: true or none is success, false failure, else an integer.
local EXIT = { __name = 'os.exit' }
function EXIT.__tostring(request) return str_format('os.exit(%d)', request.code) end
native.EXIT = EXIT

function os.exit(...)
  local code = ...
  if code == nil or code == true then
    code = 0
  elseif code == false then
    code = 1
  elseif math_type(code) ~= 'integer' then
    if math_type(code) == nil and (type(code) ~= 'string' or tonumber(code) == nil) then
      type_error(1, 1, 'os.exit', 'number', code)
    end
    code = math_tointeger(tonumber(code))
    if code == nil then bad_argument(1, 1, 'os.exit', 'number has no integer representation') end
  end
  error(setmetatable({ code = code }, EXIT), 0)
end

-- The WebAssembly build's os.date takes its dates from JavaScript's Date, which has none past
-- 8.64e15 ms either side of 1970; natively the C library refuses what it cannot represent, and so
-- does this.
local date = os.date
local LAST_DATE_SECONDS = 8640000000000
function os.date(...)
  local format, time = ...
  if format ~= nil and type(format) ~= 'string' and not math_type(format) then type_error(1, 1, 'os.date', 'string', format) end
  if time ~= nil then
    if math_type(time) == nil and (type(time) ~= 'string' or tonumber(time) == nil) then type_error(1, 2, 'os.date', 'number', time) end
    local seconds = math_tointeger(tonumber(time))
    if seconds == nil then bad_argument(1, 2, 'os.date', 'number has no integer representation') end
    if seconds > LAST_DATE_SECONDS or seconds < -LAST_DATE_SECONDS then
      error('date result cannot be represented in this installation', 2)
    end
  end
  return results(call_wrapped('os.date', date, ...))
end

os.tmpname = native.fs_tmpname
os.clock = native.clock

-- The WebAssembly build has only the C locale, yet its setlocale accepts any name without
-- effect; answer as a system without that locale does (nil), so code that checks still works.
local set_locale = os.setlocale
local C_LOCALES = { [''] = true, C = true, POSIX = true }
function os.setlocale(...)
  local locale, category = ...
  if locale ~= nil and type(locale) == 'string' and not C_LOCALES[locale] then
    call_wrapped('os.setlocale', set_locale, nil, category)
    return nil
  end
  return results(call_wrapped('os.setlocale', set_locale, ...))
end

-- luaL_loadfilex skips a UTF-8 byte order mark and a first line starting with '#', keeping its
-- newline so line numbers stay right (but not before a binary chunk).
local function without_header(source)
  if str_sub(source, 1, 3) == '\239\187\191' then source = str_sub(source, 4) end
  if str_sub(source, 1, 1) == '#' then
    local newline = str_find(source, '\n', 1, true)
    source = newline and str_sub(source, newline) or ''
    if str_sub(source, 2, 2) == '\27' then source = str_sub(source, 2) end
  end
  return source
end

-- Code comes from the generation's snapshot of the config directory first, then the disk. A chunk
-- is named by the path it was given, as natively (`loadfile('x.lua')` is `x.lua` in messages);
-- while the config loads, by the file's real path, so the config's errors name the file to edit.
local function load_file(path, mode, ...)
  if path == nil then return nil, 'loadfile: reading from standard input is not supported' end
  path = checked_string(1, 'loadfile', true, path)
  if mode ~= nil then checked_string(2, 'loadfile', true, mode) end
  local source, real = native.code_of(path)
  if not source then return nil, str_format('cannot open %s', real) end
  local name = '@' .. (real or tostring(path))
  if select('#', ...) > 0 then return load(without_header(source), name, mode, (...)) end
  return load(without_header(source), name, mode)
end
loadfile = load_file

function dofile(path)
  if path ~= nil then path = checked_string(1, 'dofile', true, path) end
  local chunk, message = load_file(path)
  if not chunk then error(message, 2) end
  return chunk()
end

-- loadlib's `setpath`: the environment's LUA_PATH_5_4 (else LUA_PATH) replaces the default, its
-- first ';;' standing for the default; the config's directory stays first either way.
local function search_path(versioned, unversioned, default)
  local value = native.getenv(versioned) or native.getenv(unversioned)
  if value == nil then return default end
  local mark = str_find(value, ';;', 1, true)
  if not mark then return value end
  local prefix, suffix = str_sub(value, 1, mark - 1), str_sub(value, mark + 2)
  local parts = {}
  if prefix ~= '' then parts[#parts + 1] = prefix end
  if default ~= '' then parts[#parts + 1] = default end
  if suffix ~= '' then parts[#parts + 1] = suffix end
  return tbl_concat(parts, ';')
end

local CONFIG_PATH = tbl_concat({
  config_dir .. '/lua/?.lua', config_dir .. '/lua/?/init.lua', config_dir .. '/?.lua', config_dir .. '/?/init.lua',
}, ';')
package.path = CONFIG_PATH .. ';' .. search_path('LUA_PATH_5_4', 'LUA_PATH', './?.lua;./?/init.lua')
package.cpath = search_path('LUA_CPATH_5_4', 'LUA_CPATH', '')
package.loaded.io = io

-- The C standard streams are out of reach: emscripten buffers what reaches them in the worker's
-- JavaScript heap, past the Lua heap's cap, without bound and for the worker's life. liolib's
-- streams and methods (the registry's `_IO_input`, `_IO_output` and `FILE*`) are not kept, and
-- `debug.debug`, which reads C stdin and prompts on C stderr, prompts on the call's log and
-- returns, as natively with stdin at its end.
local registry = debug.getregistry()
registry._IO_input, registry._IO_output, registry['FILE*'] = nil, nil, nil
function debug.debug()
  native.write_log('lua_debug> ')
end

-- Replaces every occurrence of `from` in `text` with `to`, as plain strings (luaL_gsub).
local function plain_gsub(text, from, to)
  local parts, start = {}, 1
  while true do
    local first, last = str_find(text, from, start, true)
    if not first then break end
    parts[#parts + 1] = str_sub(text, start, first - 1) .. to
    start = last + 1
  end
  parts[#parts + 1] = str_sub(text, start)
  return tbl_concat(parts)
end

-- loadlib's searchpath: every ';'-separated template (empty ones too), and on failure one
-- "no file '...'" line per template, built from the whole path. `skipped` (the config's entry
-- file, for `require`) is passed over as if it did not exist. A guarded tool finds nothing outside
-- its read roots: if nothing else is found, the first such path is refused, there or not, as
-- io.open refuses it.
local function search(name, path, separator, replacement, skipped)
  separator, replacement = separator or '.', replacement or '/'
  if separator ~= '' and str_find(name, separator, 1, true) then name = plain_gsub(name, separator, replacement) end
  local candidates = plain_gsub(path, '?', name)
  local outside
  if candidates ~= '' then
    for candidate in str_gmatch(candidates .. ';', '([^;]*);') do
      if candidate ~= skipped then
        local found, refused = native.code_exists(candidate)
        if found then return candidate end
        if refused then outside = outside or candidate end
      end
    end
  end
  if outside then native.code_refused(outside) end
  return nil, "no file '" .. plain_gsub(candidates, ';', "'\n\tno file '") .. "'"
end

function package.searchpath(name, path, separator, replacement)
  if type(name) ~= 'string' then type_error(1, 1, 'package.searchpath', 'string', name) end
  if type(path) ~= 'string' then type_error(1, 2, 'package.searchpath', 'string', path) end
  return search(name, path, separator, replacement)
end

-- loadlib's Lua searcher. Its errors carry no position: natively they are raised from C, called by
-- `require` (also C). The config's entry file is no module: `require('init')` from a library's
-- folder finds the library's `init.lua`, not the config.
local function search_lua(name)
  local path = package.path
  if math_type(path) then path = tostring(path) end
  if type(path) ~= 'string' then error("'package.path' must be a string", 2) end
  local found, tried = search(name, path, '.', '/', config_file)
  if not found then return tried end
  local chunk, message = load_file(found)
  if not chunk then
    error(str_format("error loading module '%s' from file '%s':\n\t%s", name, found, message), 2)
  end
  return chunk, found
end

package.searchers = { package.searchers[1], search_lua, package.searchers[3], package.searchers[4] }
