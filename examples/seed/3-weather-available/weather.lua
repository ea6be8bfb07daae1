-- The seed's first example with its `available` callback (verbatim): the tool is only offered
-- when a `weather` command is on PATH.
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'weather',
    description = 'Look up the current weather for a city.',
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
