-- moonpool prelude, part 3: `agent`, the ToolRegistry, RunCtx, and the entry points the worker
-- calls (load, discover, run, available). Errors name the user's file and line, never this file.
local native = __moonpool_native
local CWD, SPILL_DIR = __moonpool_cwd, __moonpool_spill_dir
local type, getmetatable, setmetatable, error, dofile = type, getmetatable, setmetatable, error, dofile
-- The prelude's own references, taken before user code runs: a tool may replace or remove the
-- library's functions (`string.gmatch = nil`) without breaking moonpool's.
local str_find, str_format, str_gmatch, str_match, str_sub = string.find, string.format, string.gmatch, string.match, string.sub
local tbl_concat, tbl_sort, traceback, getinfo = table.concat, table.sort, debug.traceback, debug.getinfo
local tostring, pairs, ipairs, next, rawget, rawequal, xpcall, pcall, collectgarbage = tostring, pairs, ipairs, next, rawget, rawequal, xpcall, pcall, collectgarbage
local raw_getmetatable = debug.getmetatable

-- A definition's keys go to the host, which knows the fields (core/tool-definitions.ts); a long
-- key is cut here, so a 1 MB key costs its tool a diagnostic, not the host a megabyte.
local FIELD_NAME_LIMIT_BYTES = 100

-- Limits of what crosses to the host (see docs/writing-tools.md, Limits).
local TITLE_LIMIT_BYTES = 1024
local ERROR_LIMIT_BYTES = 64 * 1024
local REPLY_LIMIT_BYTES = 4 * 1024 * 1024

-- `run`, `render` and `available` run on moonpool's entry thread, a coroutine, so that `capture`
-- can wait. To the tool it looks like the main thread, as in native Lua: yielding there is an
-- error, `coroutine.running()` says main and `coroutine.isyieldable()` says no (natives:
-- EntryRunner.coroutineNatives in workers/entry-runner.ts).
coroutine.yield, coroutine.running, coroutine.isyieldable = native.yield, native.running, native.isyieldable

-- moonpool's own count hook (workers/count-hook.ts) owns each thread's hook and calls a tool's
-- hook for the events it asked for; these natives record it (workers/debug-hook-natives.ts).
debug.sethook, debug.gethook = native.sethook, native.gethook

-- The prelude's functions keep their upvalues (the natives among them) out of a tool's reach: to
-- debug's upvalue functions they have none, as a C function has none.
local PRELUDE_SOURCE = getinfo(1, 'S').source
local pack, unpack, str_gsub = table.pack, table.unpack, string.gsub
local function prelude_function(f)
  return type(f) == 'function' and getinfo(f, 'S').source == PRELUDE_SOURCE
end

-- Puts moonpool's `debug.NAME` before Lua's: `hidden(...)` gives the results for a prelude
-- function (or `{ bad = N }`, argument N has no such upvalue), else Lua's own answers, with an
-- argument error worded as Lua words it for the name it was called by.
local function hide_prelude_upvalues(name, hidden)
  local original = debug[name]
  debug[name] = function(...)
    local called = getinfo(1, 'n').name or ('debug.' .. name)
    local results = hidden(...)
    if results and results.bad then
      error(str_format("bad argument #%d to '%s' (invalid upvalue index)", results.bad, called), 2)
    end
    if not results then results = pack(pcall(original, ...)) end
    if results[1] == false then error((str_gsub(results[2], "to '%?'", "to '" .. called .. "'", 1)), 2) end
    return unpack(results, 2, results.n)
  end
end
hide_prelude_upvalues('getupvalue', function(f) return prelude_function(f) and { true, n = 1 } end)
hide_prelude_upvalues('setupvalue', function(f) return prelude_function(f) and { true, n = 1 } end)
hide_prelude_upvalues('upvalueid', function(f) return prelude_function(f) and { true, nil, n = 2 } end)
hide_prelude_upvalues('upvaluejoin', function(f1, _, f2)
  return (prelude_function(f1) and { bad = 2 }) or (prelude_function(f2) and { bad = 4 }) or nil
end)

-- Nor do their frames and parameters show to `debug.getlocal`/`setlocal` (the natives, from
-- workers/debug-hook-natives.ts): a prelude function calling back into the tool (a `__tostring`)
-- would show its locals, the records of file handles among them.
debug.getlocal, debug.setlocal = native.getlocal, native.setlocal

local handlers = {}
local functions, definitions, problems = {}, {}, {}

local function source_path(info)
  local source = info.source
  if str_sub(source, 1, 1) == '@' then return str_sub(source, 2) end
  return source
end

-- The name a message gives a value's type: a string `__name` in its metatable, as Lua's own
-- argument errors say it, else its type.
local function type_name(value)
  local meta = raw_getmetatable(value)
  local name = type(meta) == 'table' and rawget(meta, '__name')
  return type(name) == 'string' and name or type(value)
end

-- A table's fields, `{ code = 42 }`, or nil for a table with none. At most ten fields are shown
-- (raw, in no set order), strings cut at 60 bytes.
local function fields_text(err)
  local shown, count = {}, 0
  for key, value in next, err do
    count = count + 1
    if count <= 10 then
      local name = type(key) == 'string' and str_match(key, '^[%a_][%w_]*$') and key or str_format('[%s]', type(key) == 'string' and str_format('%q', str_sub(key, 1, 60)) or tostring(key))
      local text = type(value) == 'string' and str_format('%q', str_sub(value, 1, 60)) or (type(value) == 'table' and '{…}' or tostring(value))
      shown[#shown + 1] = name .. ' = ' .. text
    elseif count > 1000 then
      break
    end
  end
  if count == 0 then return nil end
  local rest = count > 10 and str_format(', … %s more', count > 1000 and 'many' or tostring(count - 10)) or ''
  return str_format('{ %s%s }', tbl_concat(shown, ', '), rest)
end

-- What an error object says, as lua5.4's own handler says it: a string or a number is the
-- message, and so is what a `__tostring` gives (a number too, as `tostring` takes it); any other
-- value is named by its type, `(error object is a nil value)`. moonpool adds a table's fields,
-- and why its `__tostring` failed when it did.
local function error_message(err)
  local kind = type(err)
  if kind == 'string' or kind == 'number' then return err .. '' end
  local meta, failed = raw_getmetatable(err), ''
  if type(meta) == 'table' and rawget(meta, '__tostring') ~= nil then
    local ok, text = pcall(tostring, err)
    if ok then return text end
    local reason = type(text) == 'string' and text or str_format('(error object is a %s value)', type_name(text))
    failed = '; its __tostring failed: ' .. reason
  end
  local fields = kind == 'table' and fields_text(err)
  if fields then return str_format('(error object is a %s: %s%s)', type_name(err), fields, failed) end
  return str_format('(error object is a %s value%s)', type_name(err), failed)
end

-- An error's text, cut at ERROR_LIMIT_BYTES with a note (an error value may be any size).
local function error_text(err)
  local message = error_message(err)
  if #message <= ERROR_LIMIT_BYTES then return message end
  return str_sub(message, 1, ERROR_LIMIT_BYTES) .. str_format('\n[moonpool: error message cut at %d of its %d bytes]', ERROR_LIMIT_BYTES, #message)
end

-- The traceback of a `run` that failed, as its message handler read it: Lua's own, from the
-- failing frame down to `run`, less the natives a tool called (an error inside `io.open`, say)
-- and the nameless C function `run` is called by. The prelude's frames show as one C frame
-- named as the tool called it (`[C]: in function 'io.popen'`), as a library's C function shows
-- natively; the `error` it raised with is not the tool's.
local function failed_traceback(text)
  local kept, called = {}, nil
  for line in str_gmatch(text, '[^\n]+') do
    local native_name = str_match(line, "^%s*%[C%]: in field '([%w_]+)'$")
    local prelude_frame = str_match(line, '^%s*%[moonpool%]:%d+: (in .*)$')
    if prelude_frame then
      if called == nil and kept[#kept] == "\t[C]: in function 'error'" then kept[#kept] = nil end
      called = str_find(prelude_frame, '[moonpool]', 1, true) and 'in ?' or prelude_frame
    elseif not str_find(line, '[moonpool]', 1, true) and not str_find(line, '^%s*%[C%]: in %?') and not str_find(line, 'tail calls', 1, true)
      and not (native_name and native[native_name]) then
      if called then kept[#kept + 1], called = '\t[C]: ' .. called, nil end
      kept[#kept + 1] = line
    end
  end
  if #kept <= 1 then return '' end
  return '\n' .. tbl_concat(kept, '\n')
end

-- The first error `run` raised in the call and its traceback, taken by `run`'s message handler
-- while the failing frames are still there: as under `xpcall`, before its to-be-closed variables
-- are closed (they are closed where they can wait: a popen handle's close waits for its command).
local raised, raised_traceback
local function on_run_error(err)
  if raised_traceback == nil then raised, raised_traceback = err, traceback('', 2) end
  return err
end

local function message_only(err)
  return error_text(err)
end

local function describe(value)
  local kind = type(value)
  if kind == 'nil' then return 'nil' end
  if kind == 'number' or kind == 'boolean' then return str_format('a %s (%s)', kind, tostring(value)) end
  if kind == 'table' then
    if value.content ~= nil then return str_format('a table whose `content` is a %s', type(value.content)) end
    return 'a table without a `content` field'
  end
  return 'a ' .. kind
end

agent = {}

function agent.on(event, handler, ...)
  if event == agent then event, handler = handler, ... end
  if event ~= 'discover_tools' then
    error(str_format("agent.on: unknown event %s (the event is 'discover_tools')", tostring(event)), 2)
  end
  if type(handler) ~= 'function' then
    error(str_format("agent.on: the handler must be a function, got %s", type(handler)), 2)
  end
  handlers[#handlers + 1] = handler
end

-- `agent.default_permissions { … }`: the permissions of every tool that declares none (the host checks them).
local default_permissions
function agent.default_permissions(permissions)
  local caller = getinfo(2, 'Sl')
  default_permissions = { permissions = permissions, at = { file = source_path(caller), line = caller.currentline } }
end

local ToolRegistry = {}
ToolRegistry.__index = ToolRegistry
ToolRegistry.__name = 'ToolRegistry'

function ToolRegistry:add(definition)
  local caller = getinfo(2, 'Sl')
  if getmetatable(self) ~= ToolRegistry then
    error('registry:add must be called with a colon: registry:add { ... }', 2)
  end
  if type(definition) ~= 'table' then
    problems[#problems + 1] = {
      file = source_path(caller), line = caller.currentline,
      message = str_format('registry:add expects a table, got %s', type(definition)),
    }
    return
  end
  local run = definition.run
  local field_names = {}
  for key in pairs(definition) do
    local kind = type(key)
    if kind == 'string' and #key > FIELD_NAME_LIMIT_BYTES then
      key = str_format('%s… (%d bytes)', str_sub(key, 1, FIELD_NAME_LIMIT_BYTES), #key)
    elseif kind == 'number' or kind == 'boolean' then
      key = str_format('[%s]', tostring(key))
    elseif kind ~= 'string' then
      key = str_format('[a %s]', kind)
    end
    field_names[#field_names + 1] = key
  end
  tbl_sort(field_names)
  definitions[#definitions + 1] = {
    name = definition.name,
    description = definition.description,
    parameters = definition.parameters,
    timeout = definition.timeout,
    annotations = definition.annotations,
    output_schema = definition.output_schema,
    permissions = definition.permissions,
    run_type = type(run),
    render_type = type(definition.render),
    available_type = type(definition.available),
    module = type(run) == 'function' and source_path(getinfo(run, 'S')) or nil,
    file = source_path(caller),
    line = caller.currentline,
    field_names = field_names,
  }
  local name = definition.name
  if type(name) == 'string' and functions[name] == nil then
    functions[name] = { run = run, render = definition.render, available = definition.available }
  end
end

local RunCtx = {}
RunCtx.__index = RunCtx
RunCtx.__name = 'RunCtx'

-- ctx:show leaves the state here and counts; every `look_at` shows the worker looks at the box
-- (see workers/snapshot-box.ts) and says when to look next. The common path is a store and a
-- counter: tools call it in tight loops. A state that could not cross is raised at a look.
local snapshot_box = __moonpool_snapshot_box
local shows, look_at = 0, 1

function RunCtx:show(state)
  if type(state) ~= 'table' then
    if getmetatable(self) ~= RunCtx then error('ctx:show must be called with a colon: ctx:show(state)', 2) end
    error(str_format('ctx:show expects a table, got %s', type(state)), 2)
  end
  snapshot_box[1] = state
  shows = shows + 1
  if shows >= look_at then
    local problem
    look_at, problem = native.look_at_snapshot(shows)
    if problem then error(problem, 2) end
  end
end

function RunCtx:title(text)
  if getmetatable(self) ~= RunCtx then error('ctx:title must be called with a colon: ctx:title(text)', 2) end
  if type(text) ~= 'string' and type(text) ~= 'number' then
    error(str_format('ctx:title expects a string, got %s', type(text)), 2)
  end
  text = tostring(text)
  if #text > TITLE_LIMIT_BYTES then
    error(str_format('ctx:title: title too long (more than %d bytes)', TITLE_LIMIT_BYTES), 2)
  end
  native.title(text)
end

-- Not a tail call: ask.lua raises its errors three levels up, at the tool's line.
local ask_user = native.ask_user
function RunCtx:ask(spec)
  if getmetatable(self) ~= RunCtx then error("ctx:ask must be called with a colon: ctx:ask{ question = '...' }", 2) end
  local answer, reason = ask_user(spec)
  return answer, reason
end

-- The methods are fields of each ctx too, so `ctx:show` costs no metatable lookup.
local function new_ctx(tool, call_id)
  return setmetatable({
    cwd = CWD, spill_dir = SPILL_DIR, tool = tool, call_id = call_id, show = RunCtx.show, title = RunCtx.title,
    ask = RunCtx.ask,
  }, RunCtx)
end

local entry = {}

-- A load error's text, placed at the config's innermost line when Lua gave it no position (as
-- `require` raises, from C, for a module that does not compile), so its diagnostic has a line.
local function placed_message(err)
  local message = error_text(err)
  if str_find(message, '^[^\n]-:%d+: ') then return message end
  for level = 2, 200 do
    local info = getinfo(level, 'Sl')
    if not info then break end
    if info.currentline > 0 and str_sub(info.source, 1, 1) == '@' then
      return str_format('%s:%d: %s', source_path(info), info.currentline, message)
    end
  end
  return message
end

function entry.load(path)
  local ok, err = xpcall(dofile, placed_message, path)
  return { ok = ok, error = not ok and err or nil }
end

function entry.discover()
  functions, definitions, problems = {}, {}, {}
  for _, handler in ipairs(handlers) do
    local ok, err = xpcall(handler, message_only, setmetatable({}, ToolRegistry))
    if not ok then
      local info = getinfo(handler, 'S')
      problems[#problems + 1] = {
        file = source_path(info), line = info.linedefined, error = err, prefix = 'discover_tools handler failed: ',
      }
    end
  end
  for _, definition in ipairs(definitions) do
    if definition.permissions == nil and default_permissions then
      definition.permissions, definition.permissions_at = default_permissions.permissions, default_permissions.at
    end
  end
  return definitions, problems
end

-- Returns (content, is_error, failure, structured): read straight off the stack, nothing is built.
local function reply_run(content, is_error, failure, structured)
  return content, is_error, failure, structured
end

-- The call in progress: its tool's name and `run`.
local running_name, running_run

-- A call starts here: this returns `run`'s message handler, the tool's `run` and its arguments,
-- and the worker calls `run` on this same thread from a nameless C function at its bottom
-- (workers/entry-runner.ts), as lua5.4 calls a script's main chunk: no frame of moonpool's is in
-- its tracebacks, `debug.getinfo` or `error` levels. Then `entry.ran` or `entry.failed` makes the
-- reply. A name with no tool is the reply at once.
function entry.run(name, args, call_id)
  shows, look_at = 0, 1
  snapshot_box[1] = nil
  local tool = functions[name]
  if not tool or type(tool.run) ~= 'function' then
    return reply_run(str_format('%s: this worker has no tool of that name', name), true, 'unknown_tool')
  end
  running_name, running_run = name, tool.run
  raised, raised_traceback = nil, nil
  return on_run_error, tool.run, args, new_ctx(name, call_id)
end

-- `run` returned `result` (its first value).
function entry.ran(result)
  local name = running_name
  if type(result) == 'string' then return reply_run(result, false, nil) end
  if type(result) == 'table' and type(result.content) == 'string' then
    local structured = result.structured
    if structured ~= nil and type(structured) ~= 'table' then
      return reply_run(str_format('%s: run returned a `structured` that is a %s; it must be a table', name, type(structured)), true, 'bad_return')
    end
    return reply_run(result.content, result.is_error and true or false, nil, structured)
  end
  local defined = getinfo(running_run, 'S')
  return reply_run(
    str_format('%s:%d: %s: run returned %s; return a string, or { content = "...", is_error = true }, or { content = "...", structured = {...} }', source_path(defined), defined.linedefined, name, describe(result)),
    true,
    'bad_return'
  )
end

-- `run` raised `err`, and its to-be-closed variables are closed. An error raised by a `__close`
-- replaces the call's, as it would under `xpcall`.
function entry.failed(err, out_of_memory)
  if getmetatable(err) == native.EXIT then
    -- os.exit ended the call, as it would end a script: the model gets what the tool printed.
    local printed, code = native.printed(), err.code
    if code == 0 then return reply_run(printed, false, nil) end
    local separator = (printed == '' or str_sub(printed, -1) == '\n') and '' or '\n'
    return reply_run(str_format('%s%s%s: os.exit(%d)', printed, separator, running_name, code), true, nil)
  end
  if out_of_memory then
    collectgarbage('collect')
    return reply_run(error_text(err), true, 'out_of_memory')
  end
  local traceback_text = rawequal(err, raised) and raised_traceback and failed_traceback(raised_traceback) or ''
  return reply_run(error_text(err) .. traceback_text, true, 'lua_error')
end

function entry.available(name, call_id)
  local tool = functions[name]
  if not tool or tool.available == nil then return { available = true } end
  local ok, result = xpcall(tool.available, message_only, new_ctx(name, call_id))
  if not ok then
    return { available = false, reason = 'available() raised an error: ' .. result }
  end
  if type(result) ~= 'boolean' then
    return {
      available = false,
      reason = str_format('available() returned %s; it must return true or false', describe(result)),
    }
  end
  return { available = result, reason = not result and 'available() returned false' or nil }
end

local function render_lines(result)
  if type(result) == 'string' then result = { result } end
  local lines, bytes = {}, 0
  for i = 1, #result do
    local line = result[i]
    if type(line) ~= 'string' and type(line) ~= 'number' then
      return nil, str_format('render returned a table whose line %d is %s', i, describe(line))
    end
    line = tostring(line)
    -- Measured before the lines are split: past the limit, nothing more is done with them.
    bytes = bytes + #line + 1
    if bytes > REPLY_LIMIT_BYTES then
      return nil, str_format('render returned more than %d MiB of lines', REPLY_LIMIT_BYTES // (1024 * 1024))
    end
    for piece in str_gmatch(line .. '\n', '(.-)\n') do lines[#lines + 1] = piece end
  end
  return lines
end

function entry.render(name, view)
  local tool = functions[name]
  if not tool or type(tool.render) ~= 'function' then
    return { ok = false, reason = 'the tool has no render function' }
  end
  local holder = {}
  local decoded, problem = pcall(native.render_state, holder)
  if not decoded then return { ok = false, reason = 'the snapshot could not be read: ' .. tostring(problem) } end
  local ok, result = xpcall(tool.render, message_only, holder[1], view)
  if not ok then return { ok = false, reason = 'render failed: ' .. result } end
  if type(result) ~= 'string' and type(result) ~= 'table' then
    return { ok = false, reason = str_format('render returned %s; return a string or an array of lines', describe(result)) }
  end
  local lines, problem = render_lines(result)
  if not lines then return { ok = false, reason = problem } end
  return { ok = true, lines = lines }
end

__moonpool_entry = entry
