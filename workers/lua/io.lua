-- moonpool prelude, part 2: `io`, `os`, `require`, `loadfile`, `dofile` and `print` on the real
-- file system (the wasm build only sees an in-memory one). Relative paths resolve against ctx.cwd.
local native = __moonpool_native
local config_dir = __moonpool_config_dir

local CHUNK_SIZE = 65536
local WHOLE_READ_SIZE = 1048576
local WRITE_BUFFER_LIMIT = 65536

local function log_text(...)
  local parts = table.pack(...)
  for i = 1, parts.n do parts[i] = tostring(parts[i]) end
  return table.concat(parts, '\t', 1, parts.n)
end

function print(...)
  native.log(log_text(...))
end

-- A file object. Reads go through a buffer (`rbuf` from byte `rpos`, starting at file offset
-- `roff`); writes are buffered in `wbuf` and land at `pos` (or the end, in append mode).
local File = {}
File.__index = File
File.__name = 'FILE*'

local function new_file(fields)
  fields.rbuf, fields.rpos, fields.roff, fields.wbuf, fields.wlen = '', 1, 0, {}, 0
  return setmetatable(fields, File)
end

function File:__tostring()
  if self.closed then return 'file (closed)' end
  return ('file (%s)'):format(self.path or self.kind)
end

local function check_open(file, method)
  if getmetatable(file) ~= File then
    error(("bad argument #1 to '%s' (FILE* expected, got %s)"):format(method, type(file)), 3)
  end
  if file.closed then error('attempt to use a closed file', 3) end
end

local function position(file)
  return file.roff + file.rpos - 1
end

function File:flush()
  check_open(self, 'flush')
  if self.wlen == 0 then return self end
  local data = table.concat(self.wbuf)
  self.wbuf, self.wlen = {}, 0
  if self.sink then
    self.sink(data)
    return self
  end
  local ok, message, code = native.fs_write(self.fd, self.append and -1 or self.roff, data)
  if not ok then return nil, message, code end
  if not self.append then self.roff = self.roff + #data end
  return self
end

function File:write(...)
  check_open(self, 'write')
  if self.readonly then return nil, 'Bad file descriptor', 9 end
  if #self.rbuf > 0 then
    self.roff, self.rbuf, self.rpos = position(self), '', 1
  end
  for i = 1, select('#', ...) do
    local value = select(i, ...)
    local kind = type(value)
    if kind ~= 'string' and kind ~= 'number' then
      error(("bad argument #%d to 'write' (string expected, got %s)"):format(i, kind), 2)
    end
    value = tostring(value)
    self.wbuf[#self.wbuf + 1] = value
    self.wlen = self.wlen + #value
  end
  if self.wlen >= WRITE_BUFFER_LIMIT or self.unbuffered then
    local ok, message, code = self:flush()
    if not ok then return nil, message, code end
  end
  return self
end

-- Makes sure at least `want` unread bytes are buffered, unless the file ends first.
local function fill(file, want)
  while #file.rbuf - file.rpos + 1 < want do
    if not file.fd then return false end
    local offset = file.roff + #file.rbuf
    local chunk = native.fs_read(file.fd, offset, CHUNK_SIZE)
    if not chunk then return false end
    file.rbuf = file.rbuf:sub(file.rpos) .. chunk
    file.roff = offset - (#file.rbuf - #chunk)
    file.rpos = 1
  end
  return true
end

local function take(file, count)
  local piece = file.rbuf:sub(file.rpos, file.rpos + count - 1)
  file.rpos = file.rpos + #piece
  return piece
end

local function read_line(file, keep_newline)
  local start = file.rpos
  while true do
    local newline = file.rbuf:find('\n', start, true)
    if newline then
      local line = file.rbuf:sub(file.rpos, keep_newline and newline or newline - 1)
      file.rpos = newline + 1
      return line
    end
    local before = #file.rbuf - file.rpos + 1
    if not fill(file, before + 1) then
      if file.rpos > #file.rbuf then return nil end
      return take(file, #file.rbuf - file.rpos + 1)
    end
    start = file.rpos + before
  end
end

local function read_number(file)
  fill(file, 200)
  local text = file.rbuf:sub(file.rpos, file.rpos + 199)
  local spaces, numeral = text:match('^(%s*)([%+%-]?[%x%.xXpP%+%-]*)')
  local value = numeral and tonumber(numeral)
  while numeral and #numeral > 0 and not value do
    numeral = numeral:sub(1, -2)
    value = tonumber(numeral)
  end
  file.rpos = file.rpos + #spaces + (value and #numeral or 0)
  return value
end

local function read_one(file, format)
  if type(format) == 'number' then
    if format <= 0 then
      return fill(file, 1) and '' or nil
    end
    fill(file, format)
    if file.rpos > #file.rbuf then return nil end
    return take(file, format)
  end
  if type(format) ~= 'string' then
    error(("bad argument to 'read' (invalid format)"), 3)
  end
  local kind = format:gsub('^%*', ''):sub(1, 1)
  if kind == 'l' then return read_line(file, false) end
  if kind == 'L' then return read_line(file, true) end
  if kind == 'n' then return read_number(file) end
  if kind == 'a' then
    local parts = { file.rbuf:sub(file.rpos) }
    local offset = file.roff + #file.rbuf
    while file.fd do
      local chunk = native.fs_read(file.fd, offset, WHOLE_READ_SIZE)
      if not chunk then break end
      parts[#parts + 1] = chunk
      offset = offset + #chunk
    end
    file.rbuf, file.rpos, file.roff = '', 1, offset
    return table.concat(parts)
  end
  error(("bad argument to 'read' (invalid format '%s')"):format(format), 3)
end

function File:read(...)
  check_open(self, 'read')
  if self.writeonly then return nil, 'Bad file descriptor', 9 end
  local ok, message, code = self:flush()
  if not ok then return nil, message, code end
  local count = select('#', ...)
  if count == 0 then return read_one(self, 'l') end
  local results = {}
  for i = 1, count do
    local value = read_one(self, (select(i, ...)))
    results[i] = value
    if value == nil then return table.unpack(results, 1, i) end
  end
  return table.unpack(results, 1, count)
end

function File:lines(...)
  check_open(self, 'lines')
  local formats = table.pack(...)
  return function()
    if self.closed then error('file is already closed', 2) end
    if formats.n == 0 then return self:read('l') end
    return self:read(table.unpack(formats, 1, formats.n))
  end
end

function File:seek(whence, offset)
  check_open(self, 'seek')
  whence, offset = whence or 'cur', offset or 0
  local ok, message, code = self:flush()
  if not ok then return nil, message, code end
  local base
  if whence == 'set' then
    base = 0
  elseif whence == 'cur' then
    base = position(self)
  elseif whence == 'end' then
    base = self.fd and native.fs_size(self.fd) or (self.roff + #self.rbuf)
  else
    error(("bad argument #1 to 'seek' (invalid option '%s')"):format(tostring(whence)), 2)
  end
  local target = base + offset
  if target < 0 then return nil, 'Invalid argument', 22 end
  if self.fd then
    self.roff, self.rbuf, self.rpos = target, '', 1
  else
    self.rpos = target - self.roff + 1
  end
  return target
end

function File:setvbuf(mode)
  check_open(self, 'setvbuf')
  self.unbuffered = mode == 'no'
  return true
end

function File:close()
  check_open(self, 'close')
  if self.standard then return nil, 'cannot close standard file' end
  local ok, message, code = self:flush()
  self.closed = true
  if self.fd then native.fs_close(self.fd) end
  if self.on_close then return self.on_close() end
  if not ok then return nil, message, code end
  return true
end

File.__close = function(file)
  if not file.closed and not file.standard then file:close() end
end
File.__gc = File.__close

local MODES = { r = true, w = true, a = true, ['r+'] = true, ['w+'] = true, ['a+'] = true }

local function open(path, mode)
  mode = mode or 'r'
  if type(path) ~= 'string' then
    error(("bad argument #1 to 'open' (string expected, got %s)"):format(type(path)), 2)
  end
  local base = type(mode) == 'string' and mode:gsub('b$', '') or nil
  if not MODES[base] then
    error(("bad argument #2 to 'open' (invalid mode '%s')"):format(tostring(mode)), 2)
  end
  local fd, message, code = native.fs_open(path, base)
  if not fd then return nil, message, code end
  local first = base:sub(1, 1)
  return new_file {
    fd = fd, path = path, kind = 'file',
    append = first == 'a',
    readonly = base == 'r',
    writeonly = (first == 'w' or first == 'a') and not base:find('+', 1, true),
  }
end

local function output_sink(name)
  return new_file { kind = name, standard = true, writeonly = true, sink = function(data) native.log((data:gsub('\n$', ''))) end }
end

io = {}
io.stdin = new_file { kind = 'stdin', standard = true, readonly = true }
io.stdout = output_sink('stdout')
io.stderr = output_sink('stderr')
io.stdout.unbuffered, io.stderr.unbuffered = true, true
local default_input, default_output = io.stdin, io.stdout

io.open = open

function io.type(value)
  if getmetatable(value) ~= File then return nil end
  return value.closed and 'closed file' or 'file'
end

function io.input(file)
  if file == nil then return default_input end
  if type(file) == 'string' then
    local opened, message = open(file, 'r')
    if not opened then error(message, 2) end
    file = opened
  end
  default_input = file
  return file
end

function io.output(file)
  if file == nil then return default_output end
  if type(file) == 'string' then
    local opened, message = open(file, 'w')
    if not opened then error(message, 2) end
    file = opened
  end
  default_output = file
  return file
end

function io.read(...) return default_input:read(...) end
function io.write(...) return default_output:write(...) end

function io.close(file)
  return (file or default_output):close()
end

function io.lines(path, ...)
  if path == nil then return default_input:lines(...) end
  local file, message = open(path, 'r')
  if not file then error(message, 2) end
  local formats = table.pack(...)
  return function()
    if file.closed then return nil end
    local value
    if formats.n == 0 then
      value = file:read('l')
    else
      value = file:read(table.unpack(formats, 1, formats.n))
    end
    if value == nil then file:close() end
    return value
  end, nil, nil, file
end

function io.tmpfile()
  local path = native.fs_tmpname()
  local file = open(path, 'w+')
  file.on_close = function()
    native.fs_remove(path)
    return true
  end
  return file
end

function os.exit()
  error('os.exit is not available to tools: return a result (or { content = ..., is_error = true }) instead', 2)
end

os.getenv = native.getenv
os.remove = native.fs_remove
os.rename = native.fs_rename
os.tmpname = native.fs_tmpname

-- Code comes from the generation's snapshot of the config directory first, then the disk.
function loadfile(path, mode, env)
  if path == nil then return nil, 'loadfile: reading from standard input is not supported' end
  local source, real = native.code_of(path)
  if not source then return nil, ('cannot open %s'):format(real) end
  if env ~= nil then return load(source, '@' .. real, mode, env) end
  return load(source, '@' .. real, mode)
end

function dofile(path)
  local chunk, message = loadfile(path)
  if not chunk then error(message, 2) end
  return chunk()
end

package.path = table.concat({
  config_dir .. '/lua/?.lua', config_dir .. '/lua/?/init.lua', config_dir .. '/?.lua', config_dir .. '/?/init.lua',
}, ';')
package.cpath = ''

function package.searchpath(name, path, separator, replacement)
  separator, replacement = separator or '.', replacement or '/'
  if separator ~= '' then name = name:gsub('%' .. separator, replacement) end
  local tried = {}
  for template in path:gmatch('[^;]+') do
    local candidate = template:gsub('%?', name)
    if native.code_exists(candidate) then return candidate end
    tried[#tried + 1] = "\n\tno file '" .. candidate .. "'"
  end
  return nil, table.concat(tried)
end

local function search_lua(name)
  local path, tried = package.searchpath(name, package.path)
  if not path then return tried end
  local chunk, message = loadfile(path)
  if not chunk then
    error(("error loading module '%s' from file '%s':\n\t%s"):format(name, path, message), 3)
  end
  return chunk, path
end

package.searchers = { package.searchers[1], search_lua }
