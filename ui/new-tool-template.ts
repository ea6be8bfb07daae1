// The module `moonpool new NAME` writes: one tool with every part a tool can have (schema, run
// with live progress, render, available), small enough to read and change.

export function newToolModule(name: string): string {
  return `-- ${name}: a tool made by \`moonpool new\`. Rename, rewrite, and run \`moonpool check\`.
agent.on('discover_tools', function(registry)
  registry:add {
    name = '${name}',
    description = 'Greets someone after counting a few steps, so you can watch it work.',
    parameters = {
      type = 'object',
      properties = {
        who = { type = 'string', description = 'Who to greet.' },
        steps = { type = 'integer', minimum = 0, maximum = 50, description = 'Steps to show first. Default 3.' },
      },
      required = { 'who' },
    },
    timeout = 30,
    run = function(args, ctx)
      ctx:title(args.who)
      local steps = args.steps or 3
      for step = 1, steps do
        ctx:show { step = step, steps = steps, who = args.who }
        capture('sleep 0.1')
      end
      ctx:show { step = steps, steps = steps, who = args.who, done = true }
      return ('Hello, %s!'):format(args.who)
    end,
    render = function(state, view)
      if state.done then return 'greeted ' .. state.who end
      local width = math.max(10, math.min(view.width, 50) - 20)
      local filled = math.floor(width * state.step / math.max(state.steps, 1))
      return ('[%s%s] step %d of %d'):format(('#'):rep(filled), ('-'):rep(width - filled), state.step, state.steps)
    end,
    available = function(ctx)
      return capture('command -v sleep') ~= ''
    end,
  }
end)
`;
}
