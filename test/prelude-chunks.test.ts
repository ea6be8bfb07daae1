// The prelude's bytecode from the build is loaded only when it was compiled from the source there
// is now and is intact; otherwise the worker parses the source. The install-level tests give a
// copy of dist/ a chunk file of their own: one whose bytecode raises an error shows that a
// matching chunk is what runs; a damaged or outdated one must change nothing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import type * as Wasmoon from 'wasmoon';
import { encodePreludeChunk, preludeDump } from '../workers/prelude-chunks.js';
import { FIXTURES, ROOT, tempDir } from './helpers.js';

const SOURCE = Buffer.from('local x = 1\nreturn x\n');
const DUMP = Buffer.from('\x1bLua bytecode stand-in', 'latin1');

test('a chunk gives its bytecode back only for the very source it was compiled from, intact', () => {
  const chunk = encodePreludeChunk(SOURCE, DUMP);
  assert.deepEqual(preludeDump(chunk, SOURCE), DUMP);
  assert.equal(
    preludeDump(chunk, Buffer.from('local x = 2\nreturn x\n')),
    undefined,
    'an edited source of the same length',
  );
  assert.equal(preludeDump(chunk, Buffer.concat([SOURCE, Buffer.from(' ')])), undefined, 'a longer source');
  for (let i = 0; i < chunk.length; i++) {
    const damaged = Buffer.from(chunk);
    damaged[i]! ^= 0x20;
    assert.equal(preludeDump(damaged, SOURCE), undefined, `byte ${i} flipped`);
  }
  for (const length of [0, 5, 12, chunk.length - 1])
    assert.equal(preludeDump(chunk.subarray(0, length), SOURCE), undefined, `cut to ${length} bytes`);
});

/** Bytecode of `code`, from the wasmoon the project installs. */
async function bytecodeOf(code: string): Promise<Buffer> {
  const { LuaFactory } = createRequire(join(ROOT, 'package.json'))('wasmoon') as typeof Wasmoon;
  const engine = await new LuaFactory().createEngine();
  try {
    engine.global.set('code', code);
    const hex = engine.doStringSync(
      "return (string.dump(assert(load(code))):gsub('.', function(c) return string.format('%02x', c:byte()) end))",
    ) as string;
    return Buffer.from(hex, 'hex');
  } finally {
    engine.global.close();
  }
}

/** A copy of the install whose shell.lua chunk is `chunk`; runs `moonpool list` with it. */
function listWithShellChunk(chunk: Buffer): { status: number | null; stderr: string } {
  const install = tempDir();
  cpSync(join(ROOT, 'dist'), join(install, 'dist'), { recursive: true });
  for (const name of ['workers', 'node_modules', 'package.json']) symlinkSync(join(ROOT, name), join(install, name));
  writeFileSync(join(install, 'dist', 'workers', 'lua', 'shell.luac'), chunk);
  const run = spawnSync(
    process.execPath,
    [join(install, 'dist', 'ui', 'cli.js'), 'list', '--config', join(FIXTURES, 'snapshots')],
    { encoding: 'utf8', timeout: 30_000, killSignal: 'SIGKILL' },
  );
  return { status: run.status, stderr: run.stderr };
}

test(
  "a worker runs the build's bytecode when it matches the prelude's source, and parses the source when it does not",
  { timeout: 60_000 },
  async () => {
    const source = readFileSync(join(ROOT, 'workers', 'lua', 'shell.lua'));
    const marked = await bytecodeOf("error('loaded from the bytecode', 0)");
    const matching = listWithShellChunk(encodePreludeChunk(source, marked));
    assert.equal(matching.status, 2, matching.stderr);
    assert.match(matching.stderr, /loaded from the bytecode/);
    const outdated = listWithShellChunk(encodePreludeChunk(Buffer.concat([source, Buffer.from('\n')]), marked));
    assert.equal(outdated.status, 0, outdated.stderr);
    const damaged = encodePreludeChunk(source, marked);
    damaged[damaged.length - 3]! ^= 0x01;
    const fromDamaged = listWithShellChunk(damaged);
    assert.equal(fromDamaged.status, 0, fromDamaged.stderr);
  },
);
