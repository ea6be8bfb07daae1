-- moonpool prelude, after io.lua: what a stock Lua 5.4 build adds with LUA_COMPAT_5_3 (its makefile's
-- default, and Debian's `lua5.4`), where the WebAssembly build lacks it: `math.pow`, `log10`,
-- `ldexp`, `frexp`, `cosh`, `sinh` and `tanh`. Each is defined only when missing. The hyperbolic
-- functions are JavaScript's (natives); the others are exact in Lua.
local native = __moonpool_native
local math_type, tonumber, type, select, ipairs, huge = math.type, tonumber, type, select, ipairs, math.huge
local math_log, math_floor, math_abs, math_tointeger = math.log, math.floor, math.abs, math.tointeger

-- luaL_checknumber for a library function one frame up from its caller: a float (-0.0 kept).
local function checked_number(position, global_name, present, value)
  if math_type(value) then return value * 1.0 end
  local number = type(value) == 'string' and tonumber(value)
  if number then return number * 1.0 end
  native.type_error(2, position, global_name, 'number', value, present)
end

-- luaL_checkinteger, likewise.
local function checked_integer(position, global_name, present, value)
  if math_type(value) == 'integer' then return value end
  local number = math_type(value) and value or type(value) == 'string' and tonumber(value)
  if not number then native.type_error(2, position, global_name, 'number', value, present) end
  local integer = math_tointeger(number)
  if not integer then native.bad_argument(2, position, global_name, 'number has no integer representation') end
  return integer
end

local function define(name, implementation)
  if math[name] == nil then math[name] = implementation end
end

define('pow', function(...)
  local x, y = ...
  x = checked_number(1, 'math.pow', select('#', ...) > 0, x)
  return x ^ checked_number(2, 'math.pow', select('#', ...) > 1, y)
end)

define('log10', function(...)
  return math_log(checked_number(1, 'math.log10', select('#', ...) > 0, (...)), 10)
end)

-- C's ldexp: x · 2^e rounded once. The scale is applied in steps that stay exact (powers of two
-- within the normal range); only the last step may round, as in a subnormal result.
define('ldexp', function(...)
  local x, e = ...
  x = checked_number(1, 'math.ldexp', select('#', ...) > 0, x)
  e = checked_integer(2, 'math.ldexp', select('#', ...) > 1, e)
  -- lmathlib casts the exponent to a C int.
  e = ((e + 0x80000000) & 0xFFFFFFFF) - 0x80000000
  for _ = 1, 2 do
    if e > 1023 then
      x, e = x * 2.0 ^ 1023, e - 1023
    elseif e < -1022 then
      x, e = x * 2.0 ^ -969, e + 969
    end
  end
  if e > 1023 then e = 1023 elseif e < -1022 then e = -1022 end
  return x * 2.0 ^ e
end)

-- C's frexp: m and e with x = m · 2^e and 0.5 <= |m| < 1 (zero, infinities and NaN as they are, e 0).
define('frexp', function(...)
  local x = checked_number(1, 'math.frexp', select('#', ...) > 0, (...))
  if x == 0 or x ~= x or x == huge or x == -huge then return x, 0 end
  local shift = 0
  if math_abs(x) < 2.0 ^ -1000 then x, shift = x * 2.0 ^ 64, -64 end
  local e = math_floor(math_log(math_abs(x), 2)) + 1
  local m = x * 2.0 ^ -e
  if math_abs(m) >= 1 then
    m, e = m / 2, e + 1
  elseif math_abs(m) < 0.5 then
    m, e = m * 2, e - 1
  end
  return m, math_tointeger(e + shift)
end)

-- A native's whole-numbered result arrives as an integer: made a float again, and a zero passed
-- through as it came (sinh and tanh keep -0.0).
for _, name in ipairs({ 'cosh', 'sinh', 'tanh' }) do
  local global_name, hyperbolic, odd = 'math.' .. name, native[name], name ~= 'cosh'
  define(name, function(...)
    local x = checked_number(1, global_name, select('#', ...) > 0, (...))
    if odd and x == 0 then return x end
    return hyperbolic(x) * 1.0
  end)
end
