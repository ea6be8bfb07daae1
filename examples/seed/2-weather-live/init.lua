-- The seed's second example (a live block with ctx:title, ctx:show and render), verbatim inside
-- a discover_tools handler so that it runs as a config.
agent.on('discover_tools', function(registry)
registry:add {
  name = 'weather',
  description = 'Look up the current weather for a city.',
  parameters = { type = 'object', properties = {} },
  run = function(args, ctx)
    ctx:title(args.city)
    ctx:show { phase = 'fetching', city = args.city }
    local report = capture('weather ' .. shquote(args.city))
    ctx:show { phase = 'done', city = args.city, report = report }
    return 'The weather in ' .. args.city .. ' is ' .. report
  end,
  render = function(state, view)
    if state.phase == 'fetching' then
      return 'looking up ' .. state.city .. '...'
    end
    return state.city .. ': ' .. state.report
  end,
}
end)
