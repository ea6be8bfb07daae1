-- moonpool prelude: `ctx:ask`, a question to the user (api.lua makes it a ctx method).
-- The shape is checked here, at the tool's line; the question then goes to the host
-- (the `ask` native, workers/lua-runtime.ts) and the call waits, its time limit paused, for the answer.
local native = __moonpool_native
-- The prelude's own references, taken before user code runs (see io.lua).
local type, error, pairs, tostring = type, error, pairs, tostring
local str_format = string.format
local utf8_len = utf8.len

-- Limits of a question (see docs/writing-tools.md, Asking the user).
local QUESTION_LIMIT_BYTES = 2000
local CHOICE_LIMIT_BYTES = 200
local CHOICES_LIMIT = 20
local FIELDS = { question = true, choices = true, default = true, confirm = true }
local SHAPE = "ctx:ask expects { question = '...', choices = { '...', ... }, default = '...' }"
  .. " or { question = '...', confirm = true, default = true|false }"

-- Raised at the tool's line: ask_user runs under RunCtx:ask, itself called by the tool.
local function refuse(message, ...)
  error(str_format('ctx:ask: ' .. message, ...), 4)
end

-- The choices as a new list and a set, or nil and what is wrong with them.
local function checked_choices(choices)
  if type(choices) ~= 'table' then return nil, str_format('choices must be a list of strings, got %s', type(choices)) end
  local count, seen, list = #choices, {}, {}
  if count == 0 then return nil, 'choices is empty; give at least one' end
  if count > CHOICES_LIMIT then return nil, str_format('more than %d choices', CHOICES_LIMIT) end
  for key in pairs(choices) do
    if type(key) ~= 'number' or key < 1 or key > count or key % 1 ~= 0 then
      return nil, str_format('choices must be a list; it has the key %s', tostring(key))
    end
  end
  for i = 1, count do
    local choice = choices[i]
    if type(choice) ~= 'string' then return nil, str_format('choices[%d] must be a string, got %s', i, type(choice)) end
    if choice == '' then return nil, str_format('choices[%d] is empty', i) end
    if #choice > CHOICE_LIMIT_BYTES then
      return nil, str_format('choices[%d] is longer than %d bytes', i, CHOICE_LIMIT_BYTES)
    end
    -- A choice crosses to the host as text: bytes that are not UTF-8 would come back as another string.
    if not utf8_len(choice) then return nil, str_format('choices[%d] is not valid UTF-8 text', i) end
    if seen[choice] then return nil, str_format('choices[%d] repeats %q', i, choice) end
    seen[choice], list[i] = true, choice
  end
  return list, seen
end

-- Returns the answer (the choice picked, or true/false for a confirm), or nil and the reason:
-- 'declined' (the user would not answer) or 'unavailable' (no one could be asked).
function native.ask_user(spec)
  if type(spec) ~= 'table' then error(str_format('%s, got %s', SHAPE, type(spec)), 3) end
  for key in pairs(spec) do
    if not FIELDS[key] then refuse('unknown field %s (the fields are question, choices, default, confirm)', tostring(key)) end
  end
  local question, choices, default, confirm = spec.question, spec.choices, spec.default, spec.confirm
  if type(question) ~= 'string' or question == '' then refuse('question must be a non-empty string, got %s', type(question) == 'string' and 'an empty one' or type(question)) end
  if #question > QUESTION_LIMIT_BYTES then refuse('question is longer than %d bytes', QUESTION_LIMIT_BYTES) end
  if confirm ~= nil and confirm ~= true then refuse('confirm must be true when given, got %s', tostring(confirm)) end
  if confirm then
    if choices ~= nil then refuse('give either choices or confirm = true, not both') end
    if default ~= nil and type(default) ~= 'boolean' then refuse('default of a confirm must be true or false, got %s', type(default)) end
  else
    if choices == nil then error(SHAPE .. ': it has neither choices nor confirm = true', 3) end
    local list, seen = checked_choices(choices)
    if not list then refuse('%s', seen) end
    choices = list
    if default ~= nil and (type(default) ~= 'string' or not seen[default]) then
      refuse('default must be one of the choices, got %s', type(default) == 'string' and str_format('%q', default) or type(default))
    end
  end
  -- Checked before the question goes out: a question the call could not wait for would be open,
  -- its time limit paused, while the tool ran on.
  native.check_can_wait('ctx:ask', 'the answer')
  if confirm then return native.ask({ kind = 'confirm', question = question, default = default }) end
  return native.ask({ kind = 'choice', question = question, choices = choices, default = default })
end
