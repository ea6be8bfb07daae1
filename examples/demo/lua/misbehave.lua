-- misbehave: a tool that fails on purpose, to show that a bad tool cannot hurt the host.
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'misbehave',
    description = 'Fail on purpose: loop forever, sleep in a child process, raise an error, or exhaust memory.',
    permissions = { exec = { 'sleep' } },
    parameters = {
      type = 'object',
      properties = {
        mode = { type = 'string', enum = { 'loop', 'sleep', 'error', 'oom' }, description = 'How to fail.' },
      },
      required = { 'mode' },
    },
    timeout = 3,
    run = function(args, ctx)
      ctx:title(args.mode)
      if args.mode == 'loop' then
        while true do end
      elseif args.mode == 'sleep' then
        capture { 'sleep', '600' }
      elseif args.mode == 'error' then
        error('failing on purpose')
      elseif args.mode == 'oom' then
        -- Doubling reaches the heap cap in a few dozen steps, well within the time limit.
        local hoard = 'x'
        while true do hoard = hoard .. hoard end
      end
      return 'unreachable'
    end,
  }
end)
