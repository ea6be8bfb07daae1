-- primes: a CPU-heavy computation (trial division, no shortcuts) that reports its progress.
local progress = require('progress')

local function is_prime(n)
  if n < 2 then return false end
  if n % 2 == 0 then return n == 2 end
  for d = 3, math.floor(math.sqrt(n)), 2 do
    if n % d == 0 then return false end
  end
  return true
end

agent.on('discover_tools', function(registry)
  registry:add {
    name = 'primes',
    description = 'Count the prime numbers below a limit by trial division (deliberately CPU-heavy).',
    permissions = {}, -- it only computes: no file, no command, no variable
    parameters = {
      type = 'object',
      properties = {
        limit = { type = 'integer', minimum = 2, maximum = 100000000, description = 'Count primes below this number. Default 3,000,000.' },
      },
    },
    timeout = 600,
    run = function(args, ctx)
      local limit = args.limit or 3000000
      ctx:title('below ' .. progress.count(limit))
      local found, largest = 0, nil
      for n = 2, limit - 1 do
        if is_prime(n) then found, largest = found + 1, n end
        if n % 20000 == 0 then ctx:show { progress = { done = n, total = limit }, found = found, largest = largest } end
      end
      ctx:show { progress = { done = limit, total = limit }, found = found, largest = largest }
      return ('%s primes below %s; the largest is %s'):format(progress.count(found), progress.count(limit), tostring(largest))
    end,
    render = function(state, view)
      local counting = state.progress.done < state.progress.total
      local largest = state.largest and progress.count(state.largest) or 'none'
      return {
        progress.bar(state.progress.done, state.progress.total, view.width),
        ('%s primes found, the largest %s%s'):format(progress.count(state.found), counting and 'so far ' or '', largest),
      }
    end,
  }
end)
