// Compiles the Lua prelude (workers/lua/*.lua) to bytecode with the wasmoon the project installs, so
// that workers load it instead of parsing it at every start: dist/workers/lua/NAME.luac for each
// NAME.lua, framed by workers/prelude-chunks.ts (tsc's output of it, which this runs after) with
// the source it was compiled from. Debug information is kept: errors still name `[moonpool]:LINE`.
import { Buffer } from 'node:buffer';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Lua that compiles `__moonpool_source` and returns its bytecode as hex (wasmoon hands strings over as UTF-8 text). */
const DUMP_AS_HEX = `
  local chunk = assert(load(__moonpool_source, '=[moonpool]'))
  return (string.dump(chunk):gsub('.', function(c) return string.format('%02x', c:byte()) end))
`;

export async function compilePrelude(root, outDir) {
  const { encodePreludeChunk } = await import(pathToFileURL(join(outDir, 'workers', 'prelude-chunks.js')).href);
  const { LuaFactory } = createRequire(join(root, 'package.json'))('wasmoon');
  const sourceDir = join(root, 'workers', 'lua');
  const chunkDir = join(outDir, 'workers', 'lua');
  mkdirSync(chunkDir, { recursive: true });
  const engine = await new LuaFactory().createEngine();
  try {
    for (const name of readdirSync(sourceDir).filter((file) => file.endsWith('.lua'))) {
      const source = readFileSync(join(sourceDir, name));
      engine.global.set('__moonpool_source', source.toString('utf8'));
      const dump = Buffer.from(engine.doStringSync(DUMP_AS_HEX), 'hex');
      writeFileSync(join(chunkDir, `${name}c`), encodePreludeChunk(source, dump));
    }
  } finally {
    engine.global.close();
  }
}
