// The module `moonpool new NAME` writes: one tool with every part a tool can have (schema,
// permissions, run with live progress, render, available), small enough to read and change.

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
    -- What it may touch: it may start \`sleep\` (without a shell) and see one variable, nothing more.
    permissions = { exec = { 'sleep' }, env = { 'GREET_OFF' } },
    run = function(args, ctx)
      ctx:title(args.who)
      local steps = args.steps or 3
      for step = 1, steps do
        -- \`progress = { done, total }\` is what MCP clients see as the call's progress.
        ctx:show { progress = { done = step, total = steps }, who = args.who }
        capture { 'sleep', '0.1' }
      end
      ctx:show { progress = { done = steps, total = steps }, who = args.who, greeted = true }
      return ('Hello, %s!'):format(args.who)
    end,
    render = function(state, view)
      if state.greeted then return 'greeted ' .. state.who end
      local done, total = state.progress.done, state.progress.total
      local width = math.max(10, math.min(view.width, 50) - 20)
      local filled = math.floor(width * done / math.max(total, 1))
      return ('[%s%s] step %d of %d'):format(('#'):rep(filled), ('-'):rep(width - filled), done, total)
    end,
    available = function(ctx)
      -- Runs at every load, so it stays cheap: \`GREET_OFF=1\` in the environment withholds the tool.
      return os.getenv('GREET_OFF') == nil
    end,
  }
end)
`;
}
