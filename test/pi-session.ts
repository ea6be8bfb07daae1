// pi as a user runs it, for the tests: a session runtime whose resource loader loads the user's
// extension file (test/fixtures/pi/extension.ts, `export { default } from 'moonpool/pi'`) with
// jiti, a faux provider scripting the model's turns offline, and pi's own tool row to draw with.
import {
  fauxAssistantMessage,
  registerFauxProvider,
  type FauxProviderRegistration,
  type FauxResponseStep,
} from '@mariozechner/pi-ai';
import {
  AuthStorage,
  createAgentSessionFromServices,
  createAgentSessionRuntime,
  createAgentSessionServices,
  initTheme,
  ModelRegistry,
  SessionManager,
  SettingsManager,
  ToolExecutionComponent,
  type AgentSessionEvent,
  type AgentSessionRuntime,
  type CreateAgentSessionRuntimeFactory,
  type ExtensionUIContext,
} from '@mariozechner/pi-coding-agent';
import type { TUI } from '@mariozechner/pi-tui';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { join } from 'node:path';
import { after } from 'node:test';
import { FIXTURES, ROOT, tempDir } from './helpers.js';

export const PI_FIXTURES = join(FIXTURES, 'pi');
export const USER_EXTENSION = join(PI_FIXTURES, 'extension.ts');
const PI_CLI = join(ROOT, 'node_modules', '@mariozechner', 'pi-coding-agent', 'dist', 'cli.js');

/**
 * pi's own command in print mode (`pi -p go`) with the user's extension and the faux model, in a
 * fresh directory and agent dir; `env` is added to this process's environment (the model's turns
 * in MOONPOOL_FAUX_SCRIPT).
 */
export function runPiPrint(env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
  const args = ['-p', '--no-session', '--no-skills', '--no-context-files'];
  const extensions = ['-e', join(PI_FIXTURES, 'faux-model.ts'), '-e', USER_EXTENSION];
  return spawnSync(
    process.execPath,
    [PI_CLI, ...args, ...extensions, '--provider', 'faux', '--model', 'faux-1', 'go'],
    {
      encoding: 'utf8',
      cwd: tempDir(),
      env: { ...process.env, PI_CODING_AGENT_DIR: tempDir(), ...env },
      timeout: 50_000,
    },
  );
}

export interface PiSession {
  runtime: AgentSessionRuntime;
  faux: FauxProviderRegistration;
  events: AgentSessionEvent[];
  notices: string[];
  /** Resolves with the first event `match` accepts (one seen already counts). */
  nextEvent(match: (event: AgentSessionEvent) => boolean): Promise<AgentSessionEvent>;
  /** Ends the session as pi does on quit (session_shutdown); also done after the test file. */
  close(): Promise<void>;
  /** Runs one prompt through the scripted turns. */
  prompt(steps: FauxResponseStep[]): Promise<void>;
}

export interface PiSessionOptions {
  /** A session file to resume, or a directory for a new persistent session (default: in memory). */
  sessionFile?: string;
  sessionDir?: string;
  /** pi's dialogs, as the test answers them (the rest of the UI does nothing). */
  dialogs?: Pick<ExtensionUIContext, 'select' | 'confirm'>;
}

/** A pi session runtime with moonpool's extension loaded; disposed (session_shutdown) after the file. */
export async function openPiSession(options: PiSessionOptions = {}): Promise<PiSession> {
  const cwd = tempDir('moonpool-pi-cwd-');
  const agentDir = tempDir('moonpool-pi-agent-');
  const faux = registerFauxProvider();
  const authStorage = AuthStorage.inMemory();
  authStorage.setRuntimeApiKey(faux.getModel().provider, 'offline');
  const settingsManager = SettingsManager.inMemory();
  const modelRegistry = ModelRegistry.inMemory(authStorage);
  const createRuntime: CreateAgentSessionRuntimeFactory = async (runtimeOptions) => {
    const services = await createAgentSessionServices({
      cwd: runtimeOptions.cwd,
      agentDir: runtimeOptions.agentDir,
      authStorage,
      settingsManager,
      modelRegistry,
      resourceLoaderOptions: {
        additionalExtensionPaths: [USER_EXTENSION],
        noSkills: true,
        noPromptTemplates: true,
        noThemes: true,
        noContextFiles: true,
      },
    });
    return {
      ...(await createAgentSessionFromServices({
        services,
        sessionManager: runtimeOptions.sessionManager,
        model: faux.getModel(),
        noTools: 'builtin',
      })),
      services,
      diagnostics: services.diagnostics,
    };
  };
  const sessionManager = options.sessionFile
    ? SessionManager.open(options.sessionFile)
    : options.sessionDir
      ? SessionManager.create(cwd, options.sessionDir)
      : SessionManager.inMemory(cwd);
  const runtime = await createAgentSessionRuntime(createRuntime, { cwd, agentDir, sessionManager });
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    await runtime.dispose();
    faux.unregister();
  };
  after(dispose);
  const notices: string[] = [];
  await runtime.session.bindExtensions({ uiContext: recordingUi(notices, options.dialogs) });
  const events: AgentSessionEvent[] = [];
  const waiters: { match: (event: AgentSessionEvent) => boolean; resolve: (event: AgentSessionEvent) => void }[] = [];
  runtime.session.subscribe((event) => {
    events.push(event);
    for (const waiter of waiters.filter((candidate) => candidate.match(event))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  });
  return {
    runtime,
    faux,
    events,
    notices,
    close: dispose,
    nextEvent: (match) => {
      const seen = events.find(match);
      return seen ? Promise.resolve(seen) : new Promise((resolve) => waiters.push({ match, resolve }));
    },
    prompt: async (steps) => {
      faux.setResponses([...steps, fauxAssistantMessage('done')]);
      await runtime.session.prompt('go');
    },
  };
}

/**
 * pi's UI as an extension sees it, keeping what `notify` was told, with the test's dialogs (the
 * rest does nothing, as in print mode).
 */
function recordingUi(notices: string[], dialogs: PiSessionOptions['dialogs']): ExtensionUIContext {
  const quiet = new Proxy(
    {},
    {
      get: (_target, key) => {
        if (key === 'notify') return (message: string) => void notices.push(message);
        if (dialogs && (key === 'select' || key === 'confirm')) return dialogs[key];
        return () => undefined;
      },
    },
  );
  return quiet as ExtensionUIContext;
}

/** pi's tool row for a call, as its interactive mode builds it; `redraws` counts pi's requestRender. */
export function toolRow(
  session: PiSession,
  toolName: string,
  args: object,
): { row: ToolExecutionComponent; redrawn: () => Promise<void> } {
  initTheme('dark');
  let wake: (() => void) | undefined;
  const ui = { requestRender: () => wake?.() } as unknown as TUI;
  const definition = session.runtime.session.getToolDefinition(toolName);
  const row = new ToolExecutionComponent(toolName, `row-${toolName}`, args, {}, definition, ui, process.cwd());
  return { row, redrawn: () => new Promise<void>((resolve) => (wake = resolve)) };
}
