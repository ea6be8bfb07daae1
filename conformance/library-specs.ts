// A Lua library's own busted-style specs (its spec/*_spec.lua) run by the project's spec runner
// (spec-runner.lua) twice: natively with `lua5.4` and inside moonpool, both in the library's
// folder, so that what each printed (one line per test) can be compared line for line. Both runs
// see the same environment: `lua` on PATH (specs that start scripts call it) and LUA_PATH with the
// library's ./src first, as a library installed by luarocks would be found.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolHost } from '../core/index.js';
import { NATIVE_LUA } from './native-lua.js';

export const SPEC_RUNNER = fileURLToPath(new URL('../../conformance/spec-runner.lua', import.meta.url));

export interface SpecRun {
  /** What the runner printed, line by line. */
  lines: string[];
  /** Whether it ended with os.exit(true): every test passed. */
  passed: boolean;
}

export interface SpecRuns {
  native: SpecRun;
  moonpool: SpecRun;
}

const CONFIG = `-- One tool that runs the spec runner on the given spec files, as \`lua5.4 runner files...\` would.
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'specs',
    description = 'Runs spec files with the spec runner.',
    parameters = {
      type = 'object',
      properties = { runner = { type = 'string' }, files = { type = 'array', items = { type = 'string' } } },
      required = { 'runner', 'files' },
    },
    timeout = 600,
    run = function(args)
      arg = { [0] = args.runner, table.unpack(args.files) }
      dofile(args.runner)
      return { content = 'the spec runner returned without os.exit', is_error = true }
    end,
  }
end)
`;

function lines(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/** The library's spec files, as the runner is given them (relative to its folder), in order. */
export function specFiles(libraryDir: string): string[] {
  return readdirSync(join(libraryDir, 'spec'))
    .filter((name) => name.endsWith('_spec.lua'))
    .sort()
    .map((name) => `spec/${name}`);
}

/** Runs the library's specs natively and in moonpool; throws when `lua5.4` cannot run. */
export async function runLibrarySpecs(libraryDir: string): Promise<SpecRuns> {
  const scratch = mkdtempSync(join(tmpdir(), 'moonpool-specs-'));
  const saved = {
    PATH: process.env['PATH'],
    LUA_PATH: process.env['LUA_PATH'],
    LUA_PATH_5_4: process.env['LUA_PATH_5_4'],
  };
  try {
    writeFileSync(join(scratch, 'init.lua'), CONFIG);
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'lua'), `#!/bin/sh\nexec ${NATIVE_LUA} "$@"\n`);
    chmodSync(join(bin, 'lua'), 0o755);
    // The moonpool host's workers and their commands take the environment the host starts with.
    process.env['PATH'] = `${bin}:${saved.PATH ?? ''}`;
    process.env['LUA_PATH'] = './src/?.lua;;';
    delete process.env['LUA_PATH_5_4'];
    const files = specFiles(libraryDir);
    const native = spawnSync(NATIVE_LUA, [SPEC_RUNNER, ...files], {
      cwd: libraryDir,
      encoding: 'utf8',
      timeout: 600_000,
    });
    if (native.error) throw new Error(`${NATIVE_LUA} could not run the specs: ${native.error.message}`);
    const host = await ToolHost.start({
      config: scratch,
      cwd: libraryDir,
      stateDir: join(scratch, 'state'),
      maxThreadsPerModule: 1,
    });
    try {
      const result = await host.call('specs', { runner: SPEC_RUNNER, files });
      return {
        native: { lines: lines(native.stdout), passed: native.status === 0 },
        moonpool: {
          lines: lines(
            result.status === 'ok' ? result.content : result.content.replace(/\nspecs: os\.exit\(\d+\)$/, ''),
          ),
          passed: result.status === 'ok',
        },
      };
    } finally {
      await host.close();
    }
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(scratch, { recursive: true, force: true });
  }
}
