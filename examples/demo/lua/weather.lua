-- weather: the seed's example, offered only when a `weather` command is on PATH.
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'weather',
    description = 'Look up the current weather for a city.',
    -- Its commands are shell strings (sh), which find `weather` on PATH.
    permissions = { exec = { 'sh' }, env = { 'PATH' } },
    -- A JSON Schema object describing the arguments, shown to the model.
    parameters = {
      type = 'object',
      properties = {
        city = { type = 'string', description = 'The city to look up.' },
      },
      required = { 'city' },
    },
    run = function(args, ctx)
      local report = capture('weather ' .. shquote(args.city))
      return 'The weather in ' .. args.city .. ' is ' .. report
    end,
    available = function(ctx)
      return capture('command -v weather') ~= ''
    end,
  }
end)
