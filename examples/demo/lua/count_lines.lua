-- count_lines: walks a source tree, counts lines per language, and shows live progress.
local progress = require('progress')

-- The files below a directory, skipping node_modules, .git and dist below it (never the root
-- itself, whatever its path contains): a program and its arguments, run without a shell.
local function find_files(root)
  return { 'find', root, '-mindepth', '1', '-type', 'd', '(', '-name', 'node_modules', '-o', '-name', '.git',
    '-o', '-name', 'dist', ')', '-prune', '-o', '-type', 'f', '-print' }
end

local function language(path)
  return path:match('%.([%w_]+)$') or '(none)'
end

local function count_file(path)
  local file = io.open(path, 'rb')
  if not file then return 0 end
  local lines = 0
  for chunk in file:lines(65536) do
    local _, newlines = chunk:gsub('\n', '')
    lines = lines + newlines
  end
  file:close()
  return lines
end

local function top_languages(by_language, limit)
  local rows = {}
  for name, entry in pairs(by_language) do rows[#rows + 1] = { name = name, files = entry.files, lines = entry.lines } end
  table.sort(rows, function(a, b) return a.lines > b.lines end)
  while #rows > limit do table.remove(rows) end
  return rows
end

agent.on('discover_tools', function(registry)
  registry:add {
    name = 'count_lines',
    description = 'Count the lines of every file under a directory, per language (file extension).',
    -- Reads under the working directory, starts only `test` and `find`, writes nothing.
    permissions = { read = { '.' }, exec = { 'test', 'find' } },
    parameters = {
      type = 'object',
      properties = {
        path = { type = 'string', description = 'Directory (or file) to count, relative to the working directory. Default: "."' },
      },
    },
    run = function(args, ctx)
      local root = args.path or '.'
      ctx:title(root)
      -- A file is counted as itself; a directory, by the files below it.
      local _, not_file = capture { 'test', '-f', root }
      local _, not_directory = capture { 'test', '-d', root }
      if not_file ~= 0 and not_directory ~= 0 then
        return { content = root .. ': no such file or directory', is_error = true }
      end
      local files = {}
      if not_file == 0 then
        files[1] = root
      else
        local listing, code = capture(find_files(root))
        if code ~= 0 then
          return { content = 'cannot list ' .. root .. ': find exited with ' .. code, is_error = true }
        end
        for path in listing:gmatch('[^\n]+') do files[#files + 1] = path end
        table.sort(files)
      end
      local by_language, total_lines = {}, 0
      for i, path in ipairs(files) do
        local lines = count_file(path)
        local entry = by_language[language(path)] or { files = 0, lines = 0 }
        entry.files, entry.lines = entry.files + 1, entry.lines + lines
        by_language[language(path)] = entry
        total_lines = total_lines + lines
        ctx:show { progress = { done = i, total = #files }, current = path, lines = total_lines, top = top_languages(by_language, 8) }
      end
      local report = { ('%s lines in %s %s under %s'):format(progress.count(total_lines), progress.count(#files), #files == 1 and 'file' or 'files', root) }
      for _, row in ipairs(top_languages(by_language, 20)) do
        report[#report + 1] = ('%-12s %8s lines %6s %s'):format(row.name, progress.count(row.lines), progress.count(row.files), row.files == 1 and 'file' or 'files')
      end
      return table.concat(report, '\n')
    end,
    render = function(state, view)
      local counting = state.progress.done < state.progress.total
      local lines = {
        progress.bar(state.progress.done, state.progress.total, view.width) .. ('  %s / %s files'):format(progress.count(state.progress.done), progress.count(state.progress.total)),
        ('%s lines%s'):format(progress.count(state.lines), counting and ' so far' or ''),
      }
      local shown = view.expand and #state.top or math.min(#state.top, 3)
      for i = 1, shown do
        local row = state.top[i]
        lines[#lines + 1] = ('  %-10s %10s lines %6s %s'):format(row.name, progress.count(row.lines), progress.count(row.files), row.files == 1 and 'file' or 'files')
      end
      if counting then lines[#lines + 1] = '  ' .. state.current end
      return lines
    end,
  }
end)
