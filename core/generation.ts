// One evaluation of the config: its inspect pool (discovery, `available`, `render`), its checked
// tools and diagnostics, and one worker pool per module, created on first use, which runs its
// calls: look the tool up, check its availability and arguments, run it under its time limit,
// stream its events, and turn every ending into a CallResult. A module whose
// workers crash CRASH_LIMIT times within CRASH_WINDOW_MS is disabled for the rest of the
// generation. A replaced generation closes once the last call it runs has ended.
import { createHash } from 'node:crypto';
import { argumentProblems } from './arguments.js';
import { limitOutput } from './output-limit.js';
import { formatSeconds, messages, tell, type CallOptions, type CallResult, type CallStatus } from './call-result.js';
import { checkStructured } from './structured-result.js';
import { CallQuestions } from './call-questions.js';
import { realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { readRegularFile, snapshotConfig, type ConfigSnapshot } from './config-snapshot.js';
import { DefinitionLines } from './definition-lines.js';
import type { CpuSlots } from '../shared/cpu-slots.js';
import { compiledLuaModule } from './lua-wasm.js';
import type { AvailableReply, CallEvents, Diagnostic, RenderView, WorkerConfig } from '../shared/protocol.js';
import type { ResolvedHostOptions } from './host-options.js';
import type { CheckedTool, CheckResult } from './tool-definitions.js';
import { within } from '../shared/within.js';
import type { ThreadWatch } from './thread-watch.js';
import { MAX_TIMER_MS, WorkerPool, type PoolStats, type TaskOutcome } from './worker-pool.js';

const CRASH_LIMIT = 3;
const CRASH_WINDOW_MS = 5 * 60 * 1000;
/**
 * How long past its budget a render, or the config's load, may run before its worker is terminated: the worker stops
 * Lua itself at the budget, and this is for what Lua cannot stop (a blocking read, a long C call).
 */
const STOP_GRACE_MS = 1000;
/** Inspect workers (discovery, `available`, `render`) one generation may run at once. */
export const MAX_INSPECT_THREADS = 4;
/** How long one `available` check runs alone before the next starts beside it (on another worker). */
const AVAILABLE_STAGGER_MS = 200;

/** A block's body from `render`, or why the default block (the model-facing text) is shown (`reason` null: no line saying why). */
export type RenderResult = { ok: true; lines: string[] } | { ok: false; reason: string | null };

/** The host's options (its calls' limits among them), and what the host shares with its generations. */
export interface GenerationOptions extends Omit<ResolvedHostOptions, 'cpuSlots'> {
  number: number;
  configFile: string;
  spillDir: string;
  cpuSlots: CpuSlots;
  threads: ThreadWatch;
  /** Start a module pool's worker beside the inspect worker, for the first module called. */
  warmModuleWorker: boolean;
  /** Aborts the load (the host is closing): its discovery and `available` checks are cancelled. */
  stopLoading: AbortSignal;
  /** The config directory's files as the host already read them (used when of the config's directory). */
  snapshot?: ConfigSnapshot | undefined;
}

/** A module's pool figures, its crashes, and whether those disabled it. */
export type ModuleStats = PoolStats & { crashes: number; disabled: boolean };

export interface ToolState extends CheckedTool {
  /** A hash of the tool's module as loaded: a reload that edits only `run` still shows as a change. */
  moduleHash: string;
  availability: AvailableReply;
}

/** What every worker of a generation starts with; each pool adds its role and its own tables. */
type GenerationWorkerConfig = Omit<WorkerConfig, 'role' | 'taskTable' | 'taskTableEpochMs' | 'cpuSlots'>;

export type LoadOutcome =
  { ok: true; generation: Generation } | { ok: false; diagnostics: Diagnostic[]; logs: string[] };

export class Generation {
  /** Each module's pool, by module. */
  readonly modules = new Map<string, WorkerPool>();
  private readonly crashes = new Map<string, number[]>();
  /** Modules whose workers crashed CRASH_LIMIT times within CRASH_WINDOW_MS: disabled until the next generation. */
  private readonly disabled = new Set<string>();
  private callsInFlight = 0;
  /** Told when the last call running here ends. */
  private readonly idleWaiters: Array<() => void> = [];
  private closing: Promise<void> | undefined;

  private constructor(
    readonly options: GenerationOptions,
    private readonly workerConfig: GenerationWorkerConfig,
    private readonly inspect: WorkerPool,
    readonly tools: Map<string, ToolState>,
    readonly diagnostics: Diagnostic[],
    readonly logs: string[],
    /** A module pool warmed while the config loaded, its worker still blank: the first module called takes it. */
    private spare: WorkerPool | undefined,
  ) {}

  get number(): number {
    return this.options.number;
  }

  /** Evaluates the config in a fresh inspect worker; a config that fails to load is an outcome, never a throw. */
  static async load(options: GenerationOptions): Promise<LoadOutcome> {
    const failure = (message: string): LoadOutcome => ({
      ok: false,
      diagnostics: [{ severity: 'error', file: options.configFile, message }],
      logs: [],
    });
    const prepared = await prepare(options).catch((error: Error) => `the config cannot be read: ${error.message}`);
    if (typeof prepared === 'string') return failure(prepared);
    const { workerConfig, snapshot } = prepared;
    const skipped: Diagnostic[] = snapshot.skipped.map(({ path, reason }) => ({
      severity: 'warning',
      file: path,
      message: `skipped: ${reason}`,
    }));
    // ajv's modules load while the inspect worker starts; its first compile (about 20 ms) waits
    // until the worker is up and evaluating the config: sooner, it held up the worker's task.
    const schemaModules = Promise.all([import('./schema-compiler.js'), import('./tool-definitions.js')]);
    const inspect = newPool(options, workerConfig, 'inspect');
    const spare = options.warmModuleWorker ? newPool(options, workerConfig, 'module', 1) : undefined;
    const abandon = async (outcome: LoadOutcome): Promise<LoadOutcome> => {
      await Promise.all([inspect.close(), spare?.close()]);
      return outcome;
    };
    // The limit is the config's own: the worker's start and its Lua state have a cold start's allowance.
    // The worker stops Lua itself at the limit, naming the line; the pool's timeout is for what Lua cannot stop.
    const discovering = inspect.run(
      { kind: 'discover', budgetMs: options.loadTimeoutMs },
      {
        timeoutMs: options.loadTimeoutMs + STOP_GRACE_MS,
        coldStartMs: options.loadTimeoutMs,
        signal: options.stopLoading,
      },
    );
    // After the messages already waiting (the worker's ready signal) have been handled.
    const cameUp = inspect.cameUp.then(() => new Promise((resolve) => setImmediate(resolve)));
    const checker = Promise.all([schemaModules, cameUp]).then(([[schemas, definitions]]) => {
      const compiler = schemas.createSchemaCompiler();
      schemas.compileParameters(compiler, { type: 'object', properties: { warm: { type: 'string' } } });
      return { compiler, checkDefinitions: definitions.checkDefinitions };
    });
    checker.catch(() => undefined);
    const outcome = await discovering;
    if (outcome.kind === 'timeout') {
      const seconds = options.loadTimeoutMs / 1000;
      return abandon(failure(`loading the config took longer than ${seconds} s (an endless loop at load time?)`));
    }
    if (outcome.kind === 'cancelled') return abandon(failure('the load was cancelled: moonpool is shutting down'));
    if (outcome.kind !== 'done') {
      const why = outcome.kind === 'crashed' ? outcome.message : outcome.kind;
      return abandon(failure(`the worker loading the config crashed: ${why}`));
    }
    const report = outcome.value;
    if (!report.loaded)
      return abandon({ ok: false, diagnostics: [...skipped, ...report.diagnostics], logs: report.logs });
    let checked: CheckResult;
    try {
      const { compiler, checkDefinitions } = await checker;
      checked = checkDefinitions(report.definitions, compiler, definitionLines(snapshot));
    } catch (error) {
      return abandon(failure(`the tool definitions could not be checked: ${(error as Error).message}`));
    }
    const diagnostics = [...skipped, ...report.diagnostics, ...checked.diagnostics];
    if (checked.tools.length === 0 && diagnostics.some((diagnostic) => diagnostic.severity === 'error')) {
      // Errors that leave no tool at all: a broken edit, not a config that means to offer nothing.
      return abandon({ ok: false, diagnostics, logs: report.logs });
    }
    const moduleHash = (module: string): string =>
      createHash('sha1')
        .update(snapshot.sources[module] ?? module)
        .digest('hex');
    const tools = new Map<string, ToolState>(
      checked.tools.map((tool) => [
        tool.definition.name,
        { ...tool, moduleHash: moduleHash(tool.definition.module), availability: { available: true } },
      ]),
    );
    if (snapshot.truncated)
      diagnostics.push({
        severity: 'warning',
        file: options.configFile,
        message: `${snapshot.truncated}; the rest is read from disk when required`,
      });
    const generation = new Generation(options, workerConfig, inspect, tools, diagnostics, report.logs, spare);
    await generation.checkAvailability();
    return { ok: true, generation };
  }

  /**
   * Asks every tool with `available`, each within `availableTimeoutMs`. A check slower than AVAILABLE_STAGGER_MS has
   * the next start beside it, so slow checks overlap and fast ones share the warm worker. All end within twice one
   * check's allowance (a cold load, then its timeout): one still waiting then counts unavailable.
   */
  private async checkAvailability(): Promise<void> {
    const { availableTimeoutMs, loadTimeoutMs } = this.options;
    const overallMs = 2 * (loadTimeoutMs + availableTimeoutMs);
    // A timer takes whole milliseconds up to MAX_TIMER_MS; the options allow any positive number.
    const bound = AbortSignal.timeout(Math.min(Math.ceil(overallMs), MAX_TIMER_MS));
    const overall = AbortSignal.any([bound, this.options.stopLoading]);
    const check = async (tool: ToolState): Promise<void> => {
      const { name, permissions } = tool.definition;
      const context = { tool: name, callId: 'available', ...(permissions ? { permissions } : {}) };
      const outcome = await this.inspect.run(
        { kind: 'available', context },
        { timeoutMs: availableTimeoutMs, coldStartMs: loadTimeoutMs, signal: overall },
      );
      tool.availability = this.availabilityOf(tool, outcome, overallMs);
    };
    const running: Promise<void>[] = [];
    for (const tool of this.tools.values()) {
      if (!tool.definition.hasAvailable) continue;
      const checked = check(tool);
      running.push(checked);
      await within(checked, AVAILABLE_STAGGER_MS);
    }
    await Promise.all(running);
  }

  /** What a check's outcome says of its tool; every way it can fail says why. */
  private availabilityOf(tool: ToolState, outcome: TaskOutcome<AvailableReply>, overallMs: number): AvailableReply {
    switch (outcome.kind) {
      case 'done':
        return outcome.value;
      case 'timeout':
        return {
          available: false,
          reason: `available() did not answer within ${formatSeconds(this.options.availableTimeoutMs)}`,
        };
      case 'cancelled':
        return {
          available: false,
          reason: `available() was not answered within ${formatSeconds(overallMs)}, the bound for all of the config's checks`,
        };
      case 'busy':
        return { available: false, reason: 'available() could not be run (too many checks waiting)' };
      case 'crashed':
        this.recordCrash(tool.definition.module);
        return { available: false, reason: `available() crashed its worker: ${outcome.message}` };
    }
  }

  /** Runs the tool's `render` in the inspect pool (never behind a `run`); `reason` null: the tool has no `render`. */
  async render(name: string, snapshot: Uint8Array, view: RenderView): Promise<RenderResult> {
    const tool = this.tools.get(name);
    if (!tool) return { ok: false, reason: `${name} is not defined in the current config` };
    if (!tool.definition.hasRender) return { ok: false, reason: null };
    const budgetMs = this.options.renderBudgetMs;
    const { permissions } = tool.definition;
    const outcome = await this.inspect.run(
      { kind: 'render', tool: name, snapshot, view, budgetMs, ...(permissions ? { permissions } : {}) },
      { timeoutMs: budgetMs + STOP_GRACE_MS, coldStartMs: this.options.loadTimeoutMs },
    );
    switch (outcome.kind) {
      case 'done':
        return outcome.value.ok ? outcome.value : { ok: false, reason: outcome.value.reason };
      case 'timeout':
        return { ok: false, reason: `render did not finish within ${budgetMs + STOP_GRACE_MS} ms` };
      case 'crashed':
        this.recordCrash(tool.definition.module);
        return { ok: false, reason: `render crashed its worker: ${outcome.message}` };
      default:
        return {
          ok: false,
          reason: `render was ${outcome.kind === 'busy' ? 'refused (too many waiting)' : 'cancelled'}`,
        };
    }
  }

  /** Runs call `callId` of tool `name`; `onSpillFailure`: told when a result's spill file could not be written (the call returns its head). */
  async call(
    name: string,
    args: unknown,
    callId: string,
    options: CallOptions,
    onSpillFailure: () => void,
  ): Promise<CallResult> {
    const started = performance.now();
    const { loadTimeoutMs, memoryLimitBytes, spillDir, maxInlineChars, maxInlineLines } = this.options;
    const questions = new CallQuestions(options.onAsk);
    const finish = (status: CallStatus, content: string, extra: Partial<CallResult> = {}): CallResult => {
      const asked = questions.exchanges();
      return {
        callId,
        tool: name,
        status,
        isError: status !== 'ok',
        content,
        durationMs: Math.round(performance.now() - started),
        ...(asked.length > 0 ? { questions: asked } : {}),
        ...extra,
      };
    };

    const tool = this.tools.get(name);
    if (!tool) {
      // A tool whose definition has errors was dropped: the caller is told why, not only that it is missing.
      const errors = this.diagnostics.filter((entry) => entry.tool === name && entry.severity === 'error');
      if (errors.length > 0)
        return finish('unknown_tool', messages.definitionFailed(name, errors, dirname(this.options.configFile)));
      const known = [...this.tools.values()]
        .filter((entry) => entry.availability.available)
        .map((entry) => entry.definition.name);
      return finish('unknown_tool', messages.unknownTool(name, known));
    }
    if (!tool.availability.available)
      return finish('unavailable', messages.unavailable(name, tool.availability.reason));
    const problems = argumentProblems(tool.validate, args ?? {});
    if (problems.length > 0) return finish('invalid_args', messages.invalidArgs(name, problems));
    const { module } = tool.definition;
    if (this.disabled.has(module))
      return finish('crashed', messages.disabled(name, CRASH_LIMIT, CRASH_WINDOW_MS / 60_000));
    const pool = this.modulePool(module);

    let lastSnapshot: Uint8Array | undefined;
    // A question is heard even from a caller that cannot answer it, so that it is recorded.
    const events: CallEvents = {
      log: (text) => tell(() => options.onLog?.(text)),
      title: (text) => tell(() => options.onTitle?.(text)),
      snapshot: (bytes) => {
        lastSnapshot = bytes;
        tell(() => options.onSnapshot?.(bytes));
      },
      ask: (question, signal) => questions.ask(question, signal),
    };
    const timeoutMs = tool.definition.timeoutMs ?? this.options.timeoutMs;
    const { permissions } = tool.definition;
    const context = { tool: name, callId, ...(permissions ? { permissions } : {}) };
    const { signal, onQueued, onStart } = options;
    const limits = { timeoutMs, coldStartMs: loadTimeoutMs, signal, onQueued, onStart, events };
    const outcome = await pool.run({ kind: 'run', context, args: args ?? {} }, limits);
    switch (outcome.kind) {
      case 'busy':
        return finish('busy', messages.busy(name, this.options.maxQueuePerModule));
      case 'timeout':
        if (outcome.unstarted) return finish('timeout', messages.workerNotReady(name, loadTimeoutMs + timeoutMs));
        return finish('timeout', messages.timeout(name, timeoutMs));
      case 'cancelled':
        return finish('cancelled', messages.cancelled(name));
      case 'crashed':
        this.recordCrash(module);
        return finish('crashed', messages.crashed(name, outcome.message));
      case 'done':
        break;
    }
    const reply = outcome.value;
    const { snapshot } = reply;
    if (snapshot && !(lastSnapshot && Buffer.compare(snapshot, lastSnapshot) === 0))
      tell(() => options.onSnapshot?.(snapshot));
    const extra: Partial<CallResult> = {};
    if (reply.title !== undefined) extra.title = reply.title;
    if (reply.snapshot !== undefined) extra.snapshot = reply.snapshot;
    if (reply.failure === 'out_of_memory') return finish('error', messages.outOfMemory(name, memoryLimitBytes), extra);
    if (reply.failure === 'not_loaded') return finish('error', messages.notLoaded(name, reply.content), extra);
    const checked = reply.isError
      ? {}
      : checkStructured(reply.structured, tool.definition.outputSchema, tool.validateOutput);
    if ('problems' in checked) return finish('error', messages.badStructured(name, checked.problems), extra);
    if (checked.structured !== undefined) extra.structured = checked.structured;
    const output = limitOutput(
      reply.content,
      reply.rawContent,
      { maxChars: maxInlineChars, maxLines: maxInlineLines },
      spillDir,
      name,
      callId,
    );
    if (output.spillPath !== undefined) extra.spillPath = output.spillPath;
    if (output.spillError !== undefined) onSpillFailure();
    return finish(reply.isError ? 'error' : 'ok', output.content, extra);
  }

  /** The pool that runs `run` for tools defined in `module`. */
  private modulePool(module: string): WorkerPool {
    let pool = this.modules.get(module);
    if (!pool) {
      pool = this.spare ?? newPool(this.options, this.workerConfig, 'module');
      this.spare = undefined;
      this.modules.set(module, pool);
    }
    return pool;
  }

  private recordCrash(module: string, now = Date.now()): void {
    const crashes = [...recent(now, this.crashes.get(module)), now];
    this.crashes.set(module, crashes);
    if (crashes.length >= CRASH_LIMIT) this.disabled.add(module);
  }

  stats(): Record<string, ModuleStats> {
    const stats: ReturnType<Generation['stats']> = {};
    for (const [module, pool] of this.modules)
      stats[module] = {
        ...pool.stats(),
        crashes: this.crashes.get(module)?.length ?? 0,
        disabled: this.disabled.has(module),
      };
    return stats;
  }

  /** Marks a call as running on this generation; the returned function, called once, marks it ended. */
  enter(): () => void {
    this.callsInFlight++;
    return () => {
      if (--this.callsInFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    };
  }

  private idle(): Promise<void> {
    return this.callsInFlight === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** A newer generation took over: resolves when it has closed, once the calls still running here have ended. */
  retire(): Promise<void> {
    return this.idle().then(() => this.close());
  }

  /** Stops every worker now; resolves once the calls still running, cancelled, have ended. */
  close(): Promise<void> {
    this.closing ??= Promise.all([
      this.inspect.close(),
      this.spare?.close(),
      ...[...this.modules.values()].map((pool) => pool.close()),
    ]).then(() => this.idle());
    return this.closing;
  }
}

const recent = (now: number, crashes: number[] = []): number[] => crashes.filter((at) => now - at < CRASH_WINDOW_MS);

/** Reads the config's files for a generation, or says why it cannot (throws for a directory that cannot be read). */
async function prepare(
  options: GenerationOptions,
): Promise<{ workerConfig: GenerationWorkerConfig; snapshot: ConfigSnapshot } | string> {
  // The Lua VM's module is read and compiled off this thread while the config's files are read.
  const luaModule = compiledLuaModule();
  luaModule.catch(() => undefined);
  // Real paths: chunk names, `require` and the snapshot all agree even when the config is a symlink.
  let configFile: string;
  try {
    configFile = realpathSync(options.configFile);
  } catch {
    return `the config file ${options.configFile} does not exist (or is a symbolic link to nothing)`;
  }
  if (!statSync(configFile).isFile()) return `the config file ${options.configFile} is not a regular file`;
  const dir = dirname(configFile);
  const snapshot = options.snapshot?.dir === dir ? options.snapshot : await snapshotConfig(dir);
  const workerConfig = {
    configFile,
    configDir: dir,
    cwd: options.cwd,
    spillDir: options.spillDir,
    memoryLimitBytes: options.memoryLimitBytes,
    sources: snapshot.sources,
    luaModule: await luaModule,
  };
  return { workerConfig, snapshot };
}

/** Where definitions' fields are written: in the files the workers evaluated (the snapshot), else as the disk has them now. */
function definitionLines(snapshot: ConfigSnapshot): DefinitionLines {
  const decoder = new TextDecoder();
  return new DefinitionLines((file) => {
    const bytes = snapshot.sources[file];
    if (bytes !== undefined) return decoder.decode(bytes);
    const read = readRegularFile(file);
    return 'bytes' in read ? decoder.decode(read.bytes) : undefined;
  });
}

/** A pool of `role`; `minThreads` 1 starts its worker at once and keeps it (the warmed spare). */
function newPool(
  options: GenerationOptions,
  workerConfig: GenerationWorkerConfig,
  role: WorkerConfig['role'],
  minThreads = 0,
): WorkerPool {
  const inspect = role === 'inspect';
  return new WorkerPool({
    minThreads,
    config: { ...workerConfig, role },
    cpuSlots: options.cpuSlots,
    threads: options.threads,
    maxThreads: inspect ? MAX_INSPECT_THREADS : options.maxThreadsPerModule,
    idleTimeout: options.idleTimeoutMs,
    maxQueue: inspect ? 1000 : options.maxQueuePerModule,
  });
}
