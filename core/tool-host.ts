// ToolHost: the public face of moonpool for hosts. It loads a config into a generation, lists
// the available tools in a neutral shape, runs calls (which never throw for a tool's failure),
// and closes every worker and process it started.
import { randomBytes } from 'node:crypto';
import { resolveConfig } from './config-path.js';
import type { CallOptions, CallResult } from './call-result.js';
import { MoonpoolError } from './errors.js';
import { Generation } from './generation.js';
import { resolveHostOptions, type ResolvedHostOptions, type ToolHostOptions } from './host-options.js';
import type { Diagnostic } from './protocol.js';
import { newSessionId, openSession, type SessionPaths } from './session.js';
import type { ParametersSchema } from './tool-definitions.js';
import type { PoolStats } from './worker-pool.js';
import { runToolCall } from './tool-call.js';

/** A tool as the model should see it, plus the module it runs in. */
export interface ToolInfo {
  name: string;
  description: string;
  parameters: ParametersSchema;
  module: string;
}

export interface ToolStatus extends ToolInfo {
  available: boolean;
  unavailableReason?: string;
  file: string;
  line: number;
}

export interface HostStats {
  generation: number;
  tools: number;
  modules: Record<string, PoolStats & { crashes: number; disabled: boolean }>;
}

export class ToolHost {
  private generation: Generation | undefined;
  private currentDiagnostics: Diagnostic[] = [];
  private currentLogs: string[] = [];
  private callCounter = 0;
  /** Call ids are this host's random prefix and a counter: unique, and safe in file names. */
  private readonly callIdPrefix = randomBytes(3).toString('hex');
  private closed = false;

  private constructor(
    readonly configFile: string,
    private readonly options: ResolvedHostOptions,
    private readonly session: SessionPaths,
  ) {}

  /** Loads the config. A config with Lua errors still starts a host: see `diagnostics()` and `loaded`. */
  static async start(options: ToolHostOptions = {}): Promise<ToolHost> {
    const resolved = resolveHostOptions(options);
    const configFile = resolveConfig(options.config).file;
    const session = openSession(resolved.stateDir, resolved.sessionId ?? newSessionId());
    const host = new ToolHost(configFile, resolved, session);
    await host.load();
    return host;
  }

  get sessionId(): string {
    return this.session.id;
  }

  get spillDir(): string {
    return this.session.spillDir;
  }

  /** True once a generation of the config has loaded. */
  get loaded(): boolean {
    return this.generation !== undefined;
  }

  private async load(): Promise<void> {
    const outcome = await Generation.load({
      number: (this.generation?.number ?? 0) + 1,
      configFile: this.configFile,
      cwd: this.options.cwd,
      spillDir: this.session.spillDir,
      memoryLimitBytes: this.options.memoryLimitBytes,
      loadTimeoutMs: this.options.loadTimeoutMs,
      availableTimeoutMs: this.options.availableTimeoutMs,
      maxThreadsPerModule: this.options.maxThreadsPerModule,
      idleTimeoutMs: this.options.idleTimeoutMs,
      maxQueuePerModule: this.options.maxQueuePerModule,
    });
    if (outcome.ok) {
      this.generation = outcome.generation;
      this.currentDiagnostics = outcome.generation.diagnostics;
      this.currentLogs = outcome.generation.logs;
    } else {
      this.currentDiagnostics = outcome.diagnostics;
      this.currentLogs = outcome.logs;
    }
  }

  /** The tools the model may call: defined without errors and available. */
  tools(): ToolInfo[] {
    return this.allTools()
      .filter((tool) => tool.available)
      .map(({ name, description, parameters, module }) => ({ name, description, parameters, module }));
  }

  /** Every loaded tool, with its availability and where it is defined. */
  allTools(): ToolStatus[] {
    return [...(this.generation?.tools.values() ?? [])].map(({ definition, available, unavailableReason }) => ({
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters,
      module: definition.module,
      available,
      ...(unavailableReason === undefined ? {} : { unavailableReason }),
      file: definition.file,
      line: definition.line,
    }));
  }

  /** Problems found loading the config and checking its tools, each with file and line. */
  diagnostics(): Diagnostic[] {
    return [...this.currentDiagnostics];
  }

  /** What the config printed while loading. */
  loadLogs(): string[] {
    return [...this.currentLogs];
  }

  /** Runs a tool. Never throws for the tool's failure: the result's `status` says how it ended. */
  async call(name: string, args: unknown, options: CallOptions = {}): Promise<CallResult> {
    if (this.closed) throw new MoonpoolError('HOST_CLOSED', 'the ToolHost is closed');
    const callId = `${this.callIdPrefix}-${(++this.callCounter).toString(36)}`;
    const generation = this.generation;
    if (!generation) {
      return {
        callId,
        tool: name,
        status: 'unknown_tool',
        isError: true,
        content: `unknown tool '${name}': the config has not loaded (${this.currentDiagnostics[0]?.message ?? 'no tools'})`,
        durationMs: 0,
      };
    }
    const settings = { callId, defaultTimeoutMs: this.options.timeoutMs, memoryLimitBytes: this.options.memoryLimitBytes };
    return runToolCall(generation, name, args, settings, options);
  }

  stats(): HostStats {
    return {
      generation: this.generation?.number ?? 0,
      tools: this.generation?.tools.size ?? 0,
      modules: this.generation?.stats() ?? {},
    };
  }

  /** Cancels calls in flight, then stops every worker and the processes they started. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.generation?.close();
  }
}
