-- moonpool prelude, part 3: `io.popen` and `os.execute`, as in native Lua 5.4, over the process
-- natives (process-natives.ts). A popen handle is a `FILE*` like any file (io.lua's record and
-- methods) whose source is the command's pipe: reads wait for its output as it comes (without
-- blocking the worker), writes reach it as they are flushed, and seeking fails as on a pipe.
local native = __moonpool_native
-- The prelude's own references, taken before user code runs (see io.lua).
local str_find, str_format, error, select = string.find, string.format, error, select

-- Native Lua's `luaL_execresult`: exit code 0 is success; a signal that ended the shell is reported as one.
local function exit_status(code, signal)
  if signal then return nil, 'signal', signal end
  if code == 0 then return true, 'exit', 0 end
  return nil, 'exit', code
end

-- Starts `command` for `caller` ('io.popen', 'os.execute'), raising at the tool's line if it cannot.
local function start(caller, command, mode)
  if str_find(command, '\0', 1, true) then error(caller .. ': the command contains a NUL byte', 3) end
  native.check_can_wait(caller, 'a command')
  local id, problem = native.process_start(command, mode)
  if not id then error(caller .. ': ' .. problem, 3) end
  return id
end

-- The pipe as a file's source (see io.lua): each read takes all the output that arrived in one wait.
local PIPE = {
  read = function(file)
    if file.finished then return nil end
    native.check_can_wait('io.popen', 'a command')
    local chunk = native.process_read(file.id)
    if not chunk then file.finished = true end
    return chunk
  end,
  write = function(file, data)
    native.check_can_wait('io.popen', 'a command')
    return native.process_write(file.id, data)
  end,
  seek = function()
    return nil, 'Illegal seek', 29
  end,
  -- As `pclose`: waits for the command to exit (what was written has been flushed).
  close = function(file)
    native.check_can_wait('io.popen', 'a command')
    local done, code, signal = native.process_finish(file.id)
    if not done then return nil, code end
    return exit_status(code, signal)
  end,
  -- Collected unclosed: the pipes are let go at once; the command ends with the call at the latest.
  collect = function(file)
    native.process_forget(file.id)
  end,
}

-- As liolib's `io_popen`: the arguments checked, then every open file flushed (`fflush(NULL)`),
-- so the command sees what was written before it.
function io.popen(...)
  local command, mode = ...
  command = native.checked_string(1, 'io.popen', select('#', ...) > 0, command)
  if mode == nil then mode = 'r' else mode = native.checked_string(2, 'io.popen', true, mode) end
  if mode ~= 'r' and mode ~= 'w' then native.bad_argument(1, 2, 'io.popen', 'invalid mode') end
  native.flush_all()
  local id = start('io.popen', command, mode == 'r' and 'read' or 'write')
  return (native.new_file { source = PIPE, id = id, kind = str_format('popen %d', id), readonly = mode == 'r', writeonly = mode == 'w' })
end

function os.execute(command)
  if command == nil then return true end
  command = native.checked_string(1, 'os.execute', true, command)
  local id = start('os.execute', command, 'execute')
  local _, code, signal = native.process_finish(id)
  return exit_status(code, signal)
end
