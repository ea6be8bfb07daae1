// ToolHost: the public face of moonpool for hosts. It loads a config into a generation, lists
// the available tools in a neutral shape, runs calls, reloads the config without losing the last
// good one, and closes every worker and process it started. `call`, `reload`, `render` and
// `resume` never throw: every failure, moonpool's own I/O included, comes back as data.
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CpuSlots, type CpuSlotStats } from '../shared/cpu-slots.js';
import { watchConfig, type ConfigWatcher } from './config-watcher.js';
import { resolveConfig } from './config-path.js';
import { MoonpoolError } from './errors.js';
import { readConfigSnapshot, snapshotDigest, type ConfigSnapshot } from './config-snapshot.js';
import type { CallOptions, CallResult } from './call-result.js';
import { Generation, type LoadOutcome, type ModuleStats, type RenderResult, type ToolState } from './generation.js';
import {
  resolveHostOptions,
  SESSION_ID_PATTERN,
  type ResolvedHostOptions,
  type ToolHostOptions,
} from './host-options.js';
import type { Diagnostic, RenderView, ToolPermissions } from '../shared/protocol.js';
import { makeDirectory } from './make-directory.js';
import { newSessionId } from './session-files.js';
import { pruneSessions, pruneSpillDirs } from './session-retention.js';
import { acquireSessionLock, type SessionLock } from './session-lock.js';
import {
  readSession,
  SessionLog,
  sessionEntries,
  sessionLogPath,
  type SessionEntry,
  type SessionReadout,
  type SessionRecord,
} from './session-log.js';
import { inTurns } from './session-stream.js';
import { ThreadWatch } from './thread-watch.js';
import type { Worker } from 'node:worker_threads';
import type { ParametersSchema } from './tool-definitions.js';
import type { ToolAnnotations } from './tool-annotations.js';
import { shapeProblem } from './arguments.js';

/** Largest arguments recorded for a call whose arguments were refused or never checked (characters). */
export const MAX_REFUSED_ARGS_LOGGED_CHARS = 64 * 1024;

/** A tool as the model should see it, plus the module it runs in. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters: ParametersSchema;
  module: string;
  /** From `annotations` in registry:add, when given. */
  annotations?: ToolAnnotations;
  /** From `output_schema` in registry:add, when given: the shape of `CallResult.structured`. */
  outputSchema?: ParametersSchema;
  /** What the tool declared it may touch (its own, or the config's default); null: it declared nothing and has full access. */
  permissions: ToolPermissions | null;
}

/** A loaded tool: where it is defined, and whether it is offered (when not, always why). */
export type ToolStatus = ToolInfo & { file: string; line: number } & (
    { available: true; unavailableReason?: undefined } | { available: false; unavailableReason: string }
  );

export interface HostStats {
  generation: number;
  tools: number;
  modules: Record<string, ModuleStats>;
  /** Calls executing Lua now and calls waiting for their turn (the `cpuSlots` option). */
  cpu: CpuSlotStats;
  /** Calls whose record could not be written to the session log (a full disk, say). */
  sessionLogFailures: number;
  /** Results over the inline limits whose spill file could not be written (the model got the head). */
  spillFailures: number;
  /** Worker threads told to stop still running a second later, blocked in a system call (see docs/security.md). */
  stuckThreads: number;
  /** Worker threads alive, of every pool and generation (stuck ones included). */
  workerThreads: number;
}

/** What a reload reports: whether the new config took over, the generation now serving, and the tools it changed. */
export interface ReloadResult {
  /** True when the new config loaded and now serves; false when the previous one still does. */
  ok: boolean;
  /** The generation serving after this reload (0: none has ever loaded). */
  generation: number;
  /** The new config's problems (on failure, why it did not take over), each with file and line. */
  diagnostics: Diagnostic[];
  added: string[];
  removed: string[];
  /** Tools whose description, schema, module (or its code), timeout, callbacks, permissions or availability changed. */
  changed: string[];
  durationMs: number;
}

export interface ToolHostEvents {
  /** After every reload (by `reload()` or the watcher), whether it took over or not. */
  reload: [result: ReloadResult];
}

export class ToolHost extends EventEmitter<ToolHostEvents> {
  private generation: Generation | undefined;
  /** Replaced generations still finishing their calls. */
  private readonly retiring = new Set<Generation>();
  private reloads: Promise<unknown> = Promise.resolve();
  private watcher: ConfigWatcher | undefined;
  /** Until a generation loads: what the first load reported. */
  private unloaded: { diagnostics: Diagnostic[]; logs: string[] } = { diagnostics: [], logs: [] };
  private callCounter = 0;
  /** Call ids are this host's random prefix and a counter: unique, and safe in file names. */
  private readonly callIdPrefix = randomBytes(3).toString('hex');
  private closed = false;
  private closing: Promise<void> | undefined;
  /** Aborted by close(): a load under way stops instead of being waited for. */
  private readonly stopLoading = new AbortController();
  private readonly cpuSlots: CpuSlots;
  private readonly threads = new ThreadWatch();
  private spillFailures = 0;
  /** Records lost because the session log could not be opened at all. */
  private unopenedLogRecords = 0;
  private logOpenProblem: string | undefined;
  /** Under `watch`: the digest of the config's files as the last load read them. */
  private loadedDigest: string | undefined;

  private constructor(
    readonly configFile: string,
    private readonly options: ResolvedHostOptions,
    readonly sessionId: string,
  ) {
    super();
    this.cpuSlots = CpuSlots.create(options.cpuSlots);
  }

  /** The session's log and spill directory, made on its first call (list/check/replay leave no trace). */
  private log: SessionLog | undefined;
  /** The resumed session's lock, held until the log opens (see holdResumedSession). */
  private resumedLock: SessionLock | undefined;

  /** Loads the config. A config with Lua errors still starts a host: see `diagnostics()` and `loaded`. */
  static async start(options: ToolHostOptions = {}): Promise<ToolHost> {
    const resolved = resolveHostOptions(options);
    const config = resolveConfig(options.config);
    // The demo's `sh` runs any command: a host serves it only by naming it, never by leaving `config` out.
    if (config.source === 'bundled')
      throw new MoonpoolError(
        'CONFIG_NOT_FOUND',
        `no config found (the \`config\` option, $MOONPOOL_CONFIG, ${config.userFile}); pass \`config\` (BUNDLED_CONFIG serves the demo)`,
        { file: config.userFile },
      );
    const host = new ToolHost(config.file, resolved, resolved.sessionId ?? newSessionId());
    host.pruneSessions();
    pruneSpillDirs(resolved.stateDir, host.sessionId, resolved.spillRetentionDays);
    host.holdResumedSession();
    host.adopt(await host.loadGeneration(), undefined);
    if (resolved.watch) await host.startWatching();
    return host;
  }

  /** A resumed session's lock is taken now, not at the first call, so no other process's retention rule prunes it. */
  private holdResumedSession(): void {
    if (this.options.sessionId === undefined || !existsSync(this.sessionLogPath)) return;
    try {
      const taken = acquireSessionLock(`${this.sessionLogPath}.lock`);
      if ('lock' in taken) this.resumedLock = taken.lock;
    } catch {
      // An unusable state dir: the first call says so (see openSessionFiles).
    }
  }

  /** Watches the config's directory; a directory that cannot be watched is a warning, not a failure. */
  private async startWatching(): Promise<void> {
    try {
      this.watcher = watchConfig(dirname(this.configFile), () => this.reloadIfChanged());
      await this.watcher.ready;
    } catch (error) {
      (this.generation ?? this.unloaded).diagnostics.push({
        severity: 'warning',
        file: dirname(this.configFile),
        message: `cannot watch the config directory (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); use reload`,
      });
    }
  }

  get spillDir(): string {
    return join(this.options.stateDir, 'spill', this.sessionId);
  }

  /** Where this session's calls are logged. */
  get sessionLogPath(): string {
    return sessionLogPath(this.options.stateDir, this.sessionId);
  }

  /** What was wrong with the session log when opened (a torn tail, another writer), why it failed to open, its last failed write. */
  sessionLogWarnings(): string[] {
    const problems = [this.logOpenProblem, this.log?.lastFailure].filter((problem) => problem !== undefined);
    return [...(this.log?.warnings ?? []), ...problems];
  }

  /** The session's log and spill directory, made on the first call; a state dir that fails them loses only the record. */
  private openSessionFiles(): SessionLog | undefined {
    // A state dir that failed once is tried again on the next call: the disk may have been freed.
    if (this.log) return this.log;
    try {
      // A spill directory that cannot be made now is made (or found unusable) when a result spills.
      makeDirectory(this.spillDir, 0o700);
    } catch {
      // See limitOutput: a spill that cannot be written falls back to the inline head.
    }
    try {
      const held = this.resumedLock;
      // The log owns the lock from here, or released it if it could not open.
      this.resumedLock = undefined;
      // A long-lived host applies the retention rule as its own log grows, not only at start.
      const rollOver = { bytes: this.options.sessionSegmentBytes, onRollOver: () => this.pruneSessions() };
      this.log = SessionLog.openInTurns(this.options.stateDir, this.sessionId, held, rollOver);
      this.logOpenProblem = undefined;
    } catch (error) {
      this.logOpenProblem = `the session log cannot be opened in ${this.options.stateDir} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); calls are not recorded`;
    }
    return this.log;
  }

  /** Removes the sessions the retention rule (sessionMaxAgeDays, sessionMaxTotalBytes) says to, never this one. */
  private pruneSessions(): void {
    const { stateDir, sessionMaxAgeDays: maxAgeDays, sessionMaxTotalBytes: maxTotalBytes } = this.options;
    pruneSessions(stateDir, { maxAgeDays, maxTotalBytes }, this.sessionId);
  }

  /** True once a generation of the config has loaded. */
  get loaded(): boolean {
    return this.generation !== undefined;
  }

  /** Loads the config from `snapshot`, or from its files as they are now (read once, digested under `watch`). */
  private async loadGeneration(snapshot?: ConfigSnapshot): Promise<LoadOutcome> {
    if (this.options.watch) {
      snapshot ??= await readConfigSnapshot(this.configFile);
      this.loadedDigest = snapshot === undefined ? undefined : snapshotDigest(snapshot);
    }
    return Generation.load({
      ...this.options,
      number: (this.generation?.number ?? 0) + 1,
      configFile: this.configFile,
      spillDir: this.spillDir,
      cpuSlots: this.cpuSlots,
      threads: this.threads,
      // Only the first generation's: a reload's first call finds its modules' workers in use.
      warmModuleWorker: this.options.warmModuleWorker && this.generation === undefined,
      snapshot,
      stopLoading: this.stopLoading.signal,
    });
  }

  /** Puts a loaded generation in service (retiring the one before), or keeps the last good one. */
  private adopt(outcome: LoadOutcome, startedAt: number | undefined): ReloadResult {
    const durationMs = startedAt === undefined ? 0 : Math.round(performance.now() - startedAt);
    const previous = this.generation;
    if (!outcome.ok) {
      // Nothing serves yet: the failure is the state to report. Otherwise the last good config stays.
      if (!previous) this.unloaded = outcome;
      return failedReload(previous?.number ?? 0, outcome.diagnostics, durationMs);
    }
    const next = outcome.generation;
    this.generation = next;
    if (previous) {
      this.retiring.add(previous);
      void previous.retire().then(() => this.retiring.delete(previous));
    }
    return {
      ok: true,
      generation: next.number,
      diagnostics: next.diagnostics,
      ...diffTools(previous?.tools, next.tools),
      durationMs,
    };
  }

  /**
   * Loads the config again in a new generation: new calls go to it, calls in flight finish on the old one. If it
   * fails, the previous config keeps serving. Reloads run one at a time; each also emits `reload`.
   */
  reload(): Promise<ReloadResult> {
    const result = this.reloads.then(() => this.reloadNow());
    this.reloads = result.catch(() => undefined);
    return result;
  }

  /** The watcher's reload: skipped, with no `reload` event, while the config's files are what the last load read. */
  private reloadIfChanged(): void {
    this.reloads = this.reloads
      .then(async () => {
        const snapshot = await readConfigSnapshot(this.configFile);
        const unchanged = snapshot !== undefined && snapshotDigest(snapshot) === this.loadedDigest;
        return unchanged ? undefined : this.reloadNow(snapshot);
      })
      .catch(() => undefined);
  }

  private async reloadNow(snapshot?: ConfigSnapshot): Promise<ReloadResult> {
    const failed = (message: string): ReloadResult =>
      failedReload(this.generation?.number ?? 0, [{ severity: 'error', file: this.configFile, message }], 0);
    if (this.closed) return failed('the ToolHost is closed');
    const startedAt = performance.now();
    let reloaded: ReloadResult;
    try {
      reloaded = this.adopt(await this.loadGeneration(snapshot), startedAt);
    } catch (error) {
      reloaded = failed(`the reload failed: ${(error as Error).message}`);
    }
    try {
      this.emit('reload', reloaded);
    } catch {
      // A listener's own failure: the reload has happened, and says so.
    }
    return reloaded;
  }

  /** The tools the model may call: defined without errors and available. */
  tools(): ToolInfo[] {
    return [...(this.generation?.tools.values() ?? [])].filter((tool) => tool.availability.available).map(toolInfo);
  }

  /** Every loaded tool, with its availability and where it is defined. */
  allTools(): ToolStatus[] {
    return [...(this.generation?.tools.values() ?? [])].map((tool) => ({
      ...toolInfo(tool),
      file: tool.definition.file,
      line: tool.definition.line,
      ...(tool.availability.available
        ? { available: true }
        : { available: false, unavailableReason: tool.availability.reason }),
    }));
  }

  /** Problems found loading the config and checking its tools, each with file and line. */
  diagnostics(): Diagnostic[] {
    return [...(this.generation ?? this.unloaded).diagnostics];
  }

  /** What the config printed while loading. */
  loadLogs(): string[] {
    return [...(this.generation ?? this.unloaded).logs];
  }

  /** Runs a tool. Never throws: the result's `status` says how it ended. */
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<CallResult> {
    const callId = `${this.callIdPrefix}-${(++this.callCounter).toString(36)}`;
    // A JavaScript caller may pass any name: one that is not a string names no tool, and is shown by its type.
    const tool = typeof name === 'string' ? name : `(a ${typeof name})`;
    const failed = (status: CallResult['status'], content: string): CallResult => ({
      callId,
      tool,
      status,
      isError: true,
      content,
      durationMs: 0,
    });
    if (this.closed) return failed('cancelled', `${tool}: not run: moonpool is shutting down`);
    const generation = this.generation;
    // The generation stays open until the call has ended, even if a reload replaces it meanwhile.
    const leave = generation?.enter();
    // The call's own copy is what is checked, sent to the worker and recorded: a caller that changes its arguments
    // later (or reads differently through a getter) changes none of them. Arguments a worker cannot be sent (a
    // function) go on as given, refused where they are sent, and are not recorded.
    let ran = args;
    let recorded: unknown = { $notRecorded: 'structured clone refused them' };
    try {
      try {
        recorded = ran = structuredClone(args);
      } catch {
        // Refused when sent.
      }
      const log = this.openSessionFiles();
      let result: CallResult;
      try {
        if (typeof name !== 'string')
          result = failed('unknown_tool', `unknown tool ${tool}: a tool's name is a string`);
        else if (!generation)
          result = failed(
            'unknown_tool',
            `unknown tool '${name}': the config has not loaded (${this.unloaded.diagnostics[0]?.message ?? 'no tools'})`,
          );
        else result = await generation.call(name, ran, callId, options, () => void this.spillFailures++);
      } catch (error) {
        result = failed('error', `${tool}: moonpool failed to run the call: ${thrownText(error)}`);
      }
      if (log) this.record(log, result, recorded);
      else this.unopenedLogRecords++;
      return result;
    } finally {
      leave?.();
    }
  }

  private record(log: SessionLog, result: CallResult, args: unknown): void {
    const { callId, tool, status, content, spillPath, title, durationMs, snapshot, questions } = result;
    // Arguments refused or never checked are logged only while small: megabytes sent in error cost more to record.
    const unchecked = status === 'invalid_args' || status === 'unknown_tool' || status === 'unavailable';
    const problem = unchecked ? shapeProblem(args, MAX_REFUSED_ARGS_LOGGED_CHARS) : undefined;
    const loggedArgs = problem === undefined ? args : { $notRecorded: problem };
    const record: SessionRecord = {
      callId,
      tool,
      args: loggedArgs,
      status,
      content,
      durationMs,
      finishedAt: Date.now(),
    };
    if (spillPath !== undefined) record.spillPath = spillPath;
    if (title !== undefined) record.title = title;
    if (snapshot !== undefined) record.snapshot = snapshot;
    if (questions !== undefined) record.questions = questions;
    // A call whose record cannot be written still returns its result; the log counts the loss.
    log.enqueue(record);
  }

  /**
   * The calls recorded in a session (default: this one) in the order they started, with a warning for each stretch
   * of damage skipped and each record that left something out. Never throws. `sessionEntries` reads the same a
   * record at a time.
   */
  resume(sessionId: string = this.sessionId): SessionReadout {
    const problem = this.sessionToRead(sessionId);
    if (problem !== undefined) return { records: [], warnings: [problem], validBytes: 0 };
    return readSession(this.options.stateDir, sessionId);
  }

  /**
   * What `resume` returns, one `{ record }` or `{ warning }` at a time, letting the event loop turn every few ms while
   * it reads. Never throws; `break` or aborting `signal` ends the read and closes the session's files.
   */
  async *sessionEntries(
    sessionId: string = this.sessionId,
    { signal }: { signal?: AbortSignal } = {},
  ): AsyncGenerator<SessionEntry, void> {
    const problem = this.sessionToRead(sessionId);
    if (problem !== undefined) {
      yield { warning: problem };
      return;
    }
    try {
      yield* inTurns(sessionEntries(this.options.stateDir, sessionId), signal);
    } catch (error) {
      // A caller's signal whose `aborted` throws, say: the read ends (its files closed) and says why.
      yield { warning: `the read of session ${sessionId} stopped: ${thrownText(error)}` };
    }
  }

  /** Why `sessionId` cannot be read; for this host's own session, writes its queued records first. */
  private sessionToRead(sessionId: string): string | undefined {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId))
      return `session ids match ${SESSION_ID_PATTERN.source} (got ${JSON.stringify(sessionId)})`;
    if (sessionId === this.sessionId) {
      try {
        this.log?.flush();
      } catch {
        // Counted in sessionLogFailures; what was written is read after.
      }
    }
    return undefined;
  }

  /** A block's body from the tool's current `render` and a snapshot (CallResult.snapshot); see RenderResult. */
  async render(tool: string, snapshot: Uint8Array, view: RenderView): Promise<RenderResult> {
    const generation = this.generation;
    if (!generation) return { ok: false, reason: 'the config has not loaded' };
    if (this.closed) return { ok: false, reason: 'moonpool is shutting down' };
    // As a call does: a reload meanwhile retires the generation only once the render has ended.
    const leave = generation.enter();
    try {
      return await generation.render(tool, snapshot, view);
    } catch (error) {
      return { ok: false, reason: `render could not run: ${(error as Error).message}` };
    } finally {
      leave();
    }
  }

  stats(): HostStats {
    return {
      generation: this.generation?.number ?? 0,
      tools: this.generation?.tools.size ?? 0,
      modules: this.moduleStats(),
      cpu: this.cpuSlots.stats(),
      sessionLogFailures: (this.log?.lost ?? 0) + this.unopenedLogRecords,
      spillFailures: this.spillFailures,
      stuckThreads: this.threads.stuck(),
      workerThreads: this.threads.alive(),
    };
  }

  /** Each module's pool in the generation serving, with the calls still running on replaced generations counted in. */
  private moduleStats(): HostStats['modules'] {
    const modules = this.generation?.stats() ?? {};
    for (const generation of this.retiring) {
      for (const [module, older] of Object.entries(generation.stats())) {
        const current = modules[module];
        if (current === undefined) modules[module] = older;
        else for (const count of ['alive', 'busy', 'queued'] as const) current[count] += older[count];
      }
    }
    return modules;
  }

  /**
   * The live worker threads of `module`'s pool (as `stats().modules` names it), for monitoring; terminating one
   * crashes its call. As in `stats()`, those of replaced generations still running calls are among them.
   */
  moduleThreads(module: string): Worker[] {
    const generations = [this.generation, ...this.retiring];
    return generations.flatMap((generation) => generation?.modules.get(module)?.threads ?? []);
  }

  /**
   * Cancels calls in flight and a reload under way, stops every worker and their processes; resolves within about a
   * second (see `stuckThreads`). A second call resolves with the first.
   */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    this.closed = true;
    this.watcher?.close();
    this.stopLoading.abort();
    await this.reloads;
    // Once the cancelled calls have written their records, the log closes.
    await Promise.all([this.generation?.close(), ...[...this.retiring].map((generation) => generation.close())]);
    try {
      this.log?.close();
    } catch {
      // Counted in sessionLogFailures; closing goes on.
    }
    this.resumedLock?.release();
    // Threads told to stop get their second to exit; any still running then is reported stuck.
    await this.threads.settled();
  }
}

/** A tool as `tools()` shows it. */
function toolInfo({ definition }: ToolState): ToolInfo {
  const { name, description, parameters, module, annotations, outputSchema, permissions } = definition;
  return {
    name,
    description,
    parameters,
    module,
    ...(annotations === undefined ? {} : { annotations }),
    ...(outputSchema === undefined ? {} : { outputSchema }),
    permissions: permissions ?? null,
  };
}

/** A reload that did not take over: the generation `generation` keeps serving. */
function failedReload(generation: number, diagnostics: Diagnostic[], durationMs: number): ReloadResult {
  return { ok: false, generation, diagnostics, added: [], removed: [], changed: [], durationMs };
}

/** The tools a reload added, removed and changed. */
function diffTools(
  previous: Map<string, ToolState> = new Map(),
  after: Map<string, ToolState>,
): Pick<ReloadResult, 'added' | 'removed' | 'changed'> {
  const fingerprint = ({ definition, moduleHash, availability }: ToolState): string => {
    const { description, parameters, module, timeoutMs, hasRender, hasAvailable, permissions } = definition;
    const fields = [description, parameters, module, moduleHash, timeoutMs ?? null, hasRender, hasAvailable];
    return JSON.stringify([...fields, permissions ?? null, availability.available]);
  };
  return {
    added: [...after.keys()].filter((name) => !previous.has(name)),
    removed: [...previous.keys()].filter((name) => !after.has(name)),
    changed: [...after.entries()]
      .filter(([name, tool]) => previous.has(name) && fingerprint(previous.get(name)!) !== fingerprint(tool))
      .map(([name]) => name),
  };
}

/** What a caller's thrown value says, whatever it is (`null`, a string, an object whose `toString` throws). */
function thrownText(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return `a ${typeof error} that cannot be shown`;
  }
}
