// Suite files run inside moonpool: a generated config with one tool per file, each in its own
// module (so each file gets a fresh Lua state, as a fresh `lua5.4` process does), the suite's
// folder as the working directory, one call per file.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { failureLocation } from './failure-location.js';
import type { FileOutcome } from './file-outcome.js';
import { HARNESS_PRELUDE } from './suite-files.js';

const SAFE_FILE_NAME = /^[A-Za-z0-9_-]+\.lua$/;

function toolName(file: string): string {
  return `suite_${file.slice(0, -'.lua'.length).replace(/-/g, '_')}`;
}

/**
 * The module for one file. The file runs under its own `xpcall` whose handler keeps a private
 * `debug.traceback`, since the harness sets the global `debug` to nil.
 */
function moduleSource(file: string, timeoutSeconds: number): string {
  return `-- Runs ${file} of the Lua test suite as all.lua does.
local traceback = debug.traceback
return function(registry)
  registry:add {
    name = '${toolName(file)}',
    description = 'Runs ${file} of the Lua test suite.',
    timeout = ${timeoutSeconds},
    run = function()
      ${HARNESS_PRELUDE}
      local ok, message = xpcall(dofile, function(err) return traceback(tostring(err), 2) end, '${file}')
      if not ok then return { content = message, is_error = true } end
      return 'OK'
    end,
  }
end
`;
}

export interface MoonpoolSuite {
  run(file: string): Promise<FileOutcome>;
  close(): Promise<void>;
}

/** Starts a host whose tools run the given suite files of `dir`, each within `timeoutMs`. */
export async function startMoonpoolSuite(dir: string, files: string[], timeoutMs: number): Promise<MoonpoolSuite> {
  const configDir = mkdtempSync(join(tmpdir(), 'moonpool-conformance-'));
  const cleanUp = (): void => rmSync(configDir, { recursive: true, force: true });
  try {
    mkdirSync(join(configDir, 'lua'));
    for (const file of files) {
      if (!SAFE_FILE_NAME.test(file)) throw new Error(`not a suite file name: ${file}`);
      writeFileSync(join(configDir, 'lua', `${toolName(file)}.lua`), moduleSource(file, Math.ceil(timeoutMs / 1000)));
    }
    const requires = files.map((file) => `  require('${toolName(file)}')(registry)`).join('\n');
    writeFileSync(join(configDir, 'init.lua'), `agent.on('discover_tools', function(registry)\n${requires}\nend)\n`);
    const host = await ToolHost.start({
      config: configDir,
      cwd: dir,
      stateDir: join(configDir, 'state'),
      maxThreadsPerModule: 1,
      idleTimeoutMs: 1_000,
    });
    const problems = host.diagnostics().filter((diagnostic) => diagnostic.severity === 'error');
    if (problems.length > 0) {
      await host.close();
      throw new Error(
        `the conformance config failed to load: ${problems.map((problem) => problem.message).join('; ')}`,
      );
    }
    return {
      run: async (file) => {
        const result = await host.call(toolName(file), {});
        const passed = result.status === 'ok';
        const detail = passed ? '' : `${result.status}: ${result.content}`;
        return {
          passed,
          ms: result.durationMs,
          failure: passed ? '' : failureLocation(result.status === 'error' ? result.content : result.status),
          detail,
        };
      },
      close: async () => {
        try {
          await host.close();
        } finally {
          cleanUp();
        }
      },
    };
  } catch (error) {
    cleanUp();
    throw error;
  }
}
