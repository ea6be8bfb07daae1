// Differential testing: a Lua snippet run natively by `lua5.4` (the control) and inside moonpool,
// from the same file in the same working directory, and what each printed compared line by line.
// The working directory is also the config directory, so code under it is loaded as a config's is.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, startHost, tempDir } from './helpers.js';
import type { ToolHost } from '../core/index.js';

export const NATIVE_LUA = 'lua5.4';

export interface SnippetRuns {
  /** What lua5.4 wrote to stdout, line by line. */
  native: string[];
  /** What lua5.4 wrote to stderr (warnings), line by line. */
  nativeErrors: string[];
  /** The call's log: everything the snippet printed or warned. */
  moonpool: string[];
}

/** A file in the config directory before the host starts, so it is in the generation's snapshot. */
export const PREEXISTING_MODULE = 'preexisting.lua';

function lines(text: string): string[] {
  return text === '' ? [] : text.replace(/\n$/, '').split('\n');
}

/**
 * The snippet's file name as native Lua writes it in messages: a chunk name past 59 characters
 * keeps its last 56 after `...` (LUA_IDSIZE), where moonpool keeps it whole. Applied to
 * moonpool's side, so the comparison holds whatever the temporary directory's length.
 */
export function nativeChunkName(path: string): string {
  return path.length <= 59 ? path : `...${path.slice(-56)}`;
}

/** Runs snippets both ways; created once per test file (one host, one working directory). */
export class Differential {
  private count = 0;

  private constructor(
    private readonly host: ToolHost,
    readonly dir: string,
  ) {}

  /** Fails with the reason when `lua5.4` cannot run: the control is required, never skipped. */
  static async start(): Promise<Differential> {
    const probe = spawnSync(NATIVE_LUA, ['-v'], { encoding: 'utf8' });
    if (probe.error) {
      throw new Error(
        `${NATIVE_LUA} is not installed, and the differential tests need it as their control (apt-get install lua5.4; .ci/run installs it): ${probe.error.message}`,
      );
    }
    const dir = realpathSync(tempDir('moonpool-differential-'));
    cpSync(join(FIXTURES, 'differential'), dir, { recursive: true });
    writeFileSync(join(dir, PREEXISTING_MODULE), "return 'as the config loaded it'\n");
    return new Differential(await startHost(dir, { cwd: dir }), dir);
  }

  /** What `source` prints natively and in moonpool; either raising is an error naming the side. */
  async run(source: string): Promise<SnippetRuns> {
    const path = join(this.dir, `snippet_${++this.count}.lua`);
    writeFileSync(path, source);
    const native = spawnSync(NATIVE_LUA, [path], { cwd: this.dir, encoding: 'utf8', timeout: 60_000 });
    if (native.status !== 0) throw new Error(`the snippet failed natively:\n${native.stderr}`);
    const log: string[] = [];
    const result = await this.host.call('snippet', { path }, { onLog: (text) => log.push(text) });
    if (result.status !== 'ok')
      throw new Error(`the snippet failed in moonpool (${result.status}):\n${result.content}`);
    const shortened = nativeChunkName(path);
    return {
      native: lines(native.stdout),
      nativeErrors: lines(native.stderr),
      moonpool: log.map((text) => text.split(path).join(shortened)),
    };
  }

  /** Asserts that `source` prints something natively, and the same lines in moonpool. */
  async same(source: string): Promise<void> {
    const { native, moonpool } = await this.run(source);
    assert.ok(native.length > 0, 'the snippet printed nothing natively');
    assert.deepEqual(moonpool, native);
  }
}
