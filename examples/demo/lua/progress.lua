-- Small drawing helpers shared by the demo tools' render callbacks.
local progress = {}

-- A bar like `[########------] 57%` that fits `width` columns.
function progress.bar(done, total, width)
  local inner = math.max(10, math.min(width or 40, 60) - 7)
  local ratio = total > 0 and math.min(done / total, 1) or 0
  local filled = math.floor(ratio * inner + 0.5)
  return ('[%s%s] %3d%%'):format(('#'):rep(filled), ('-'):rep(inner - filled), math.floor(ratio * 100))
end

-- Thousands separators: 1234567 -> 1,234,567.
function progress.count(n)
  local text = tostring(math.floor(n))
  return (text:reverse():gsub('(%d%d%d)', '%1,'):reverse():gsub('^,', ''))
end

return progress
