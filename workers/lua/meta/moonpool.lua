---@meta moonpool
-- Lua Language Server annotations for moonpool's tool API: completion and checking in your editor.
-- Point the editor at this folder with one line of .luarc.json in your config directory:
--   { "workspace.library": ["/path/to/moonpool/workers/lua/meta"] }
-- (`moonpool new` writes it for you.) A test keeps this file and the runtime in step.

---The host agent: register handlers for its events.
---@class Agent
agent = {}

---Registers `handler` for `event`. The one event is `'discover_tools'`: it runs when the config
---loads and on every reload, with a registry to add tools to. Several handlers may register.
---@param event 'discover_tools'
---@param handler fun(registry: ToolRegistry)
function agent.on(event, handler) end

---Sets the permissions of every tool of the config that declares none.
---@param permissions ToolPermissions
function agent.default_permissions(permissions) end

---What `discover_tools` handlers add tools to.
---@class ToolRegistry
local ToolRegistry = {}

---A tool, as given to `registry:add`.
---@class ToolDefinition
---@field name string Matches ^[a-zA-Z0-9_-]{1,64}$.
---@field description string What the model is told the tool does.
---@field parameters? table A JSON Schema with type = 'object'; default { type = 'object', properties = {} }.
---@field run fun(args: table, ctx: RunCtx): string|ToolResult Runs the tool; returns what the model sees.
---@field render? fun(state: table, view: RenderView): string|string[] Draws the tool's block from its latest snapshot.
---@field available? fun(ctx: RunCtx): boolean Whether the tool is offered at all (asked once per load).
---@field timeout? number Wall-clock limit in seconds (default 120).
---@field annotations? ToolAnnotations Hints for clients (MCP's title and *Hint fields).
---@field output_schema? table A JSON Schema with type = 'object' that `structured` results must match (MCP's outputSchema).
---@field permissions? ToolPermissions What the tool may touch; without it, everything the user can.

---What a tool may touch. A kind left out allows nothing; `true` allows anything of that kind.
---@class ToolPermissions
---@field read? true|string[] Paths it may read (relative to ctx.cwd; `~` is the home directory).
---@field write? true|string[] Paths it may write (and read).
---@field exec? boolean|string[] Programs it may start; a shell string needs 'sh' or true.
---@field env? true|string[] Environment variables `os.getenv` and commands see.

---Hints a client may show or act on; each is optional.
---@class ToolAnnotations
---@field title? string A human-readable name (at most 200 characters).
---@field read_only? boolean The tool changes nothing around it.
---@field destructive? boolean A change it makes may destroy something.
---@field idempotent? boolean Calling it again with the same arguments changes nothing more.
---@field open_world? boolean It reaches things outside the host (the web, other services).

---A result that says whether the call failed, or carries structured data.
---@class ToolResult
---@field content string What the model sees (and what clients without structured support show).
---@field is_error? boolean True when the call failed.
---@field structured? table A table with named fields sent as MCP's structuredContent; checked against `output_schema`.

---Adds a tool. A bad definition is reported with file:line; the other tools still load.
---@param definition ToolDefinition
function ToolRegistry:add(definition) end

---What `run` and `available` get about the call.
---@class RunCtx
---@field cwd string The working directory (absolute).
---@field spill_dir string A scratch directory for large output, per session.
---@field tool string This tool's name.
---@field call_id string This call's id.
local RunCtx = {}

---Publishes a snapshot for the tool's live block: any plain table (strings, numbers, booleans,
---tables; string, number or boolean keys), at most 16 MiB encoded and 200 levels deep; `render`
---receives it as it was. Cheap enough for tight loops; the host sees the latest, at most ~30 a second.
---`state.progress = { done = n, total = m }` says how far the call is (MCP progress and total).
---@param state table
function RunCtx:show(state) end

---Sets the short label shown after the tool's name in its block header (at most 1,024 bytes).
---@param text string|number
function RunCtx:title(text) end

---A question for `ctx:ask`: `choices` (pick one) or `confirm = true` (yes or no), not both.
---@class AskSpec
---@field question string What to ask (at most 2,000 bytes).
---@field choices? string[] 1 to 20 distinct, non-empty strings (each at most 200 bytes).
---@field confirm? true Ask yes or no instead.
---@field default? string|boolean One of `choices`, or a boolean for a confirm: what Enter picks, and what `moonpool call --yes` or no terminal answers.

---Asks the user and waits for the answer; the call's time limit stands still meanwhile. Only in
---`run`, not inside a coroutine of your own. Returns the choice picked (a string), or true/false
---for a confirm; or nil and why: 'declined' (the user would not answer) or 'unavailable' (no one
---could be asked: a host that cannot ask, no terminal and no default).
---@param spec AskSpec
---@return string|boolean|nil answer
---@return 'declined'|'unavailable'|nil reason
function RunCtx:ask(spec) end

---The space a block has, for `render`.
---@class RenderView
---@field width integer Columns.
---@field height integer Lines.
---@field expand boolean The user asked for the full output.

---Options of `capture`.
---@class CaptureOptions
---@field keep? boolean Let the processes the command starts outlive the call (they are yours to stop).

---Runs `/bin/sh -c command` (or, given a list, that program with those arguments and no shell)
---in ctx.cwd without blocking; returns its stdout (trailing newlines
---removed) and its exit code (128 + signal when a signal ended it). Its stderr goes to the call's
---log. Every process it starts ends with the call unless `options.keep` is set. Raises an error
---past 64 MiB of output, past 60 commands running at once, or when the command cannot start.
---@param command string|string[]
---@param options? CaptureOptions
---@return string stdout
---@return integer code
function capture(command, options) end

---Quotes a string as one POSIX shell word, whatever bytes it holds (but NUL).
---@param value string|number
---@return string
function shquote(value) end
