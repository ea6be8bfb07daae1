-- sh: runs a shell command in the working directory and returns its output and exit code.
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'sh',
    description = 'Run a shell command (/bin/sh -c) in the working directory; returns stdout and the exit code.',
    -- A shell runs anything, so it is given everything, in so many words.
    permissions = { read = true, write = true, exec = true, env = true },
    parameters = {
      type = 'object',
      properties = { command = { type = 'string', description = 'The command line to run.' } },
      required = { 'command' },
    },
    timeout = 60,
    run = function(args, ctx)
      ctx:title(args.command)
      local output, code = capture(args.command)
      if code ~= 0 then
        return { content = ('%s\n(exit code %d)'):format(output, code), is_error = true }
      end
      return output
    end,
  }
end)
