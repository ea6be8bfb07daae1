// `moonpool new NAME [--dir DIR]`: writes DIR/lua/NAME.lua (a tool with schema, run, render and
// available), adds `require('NAME')` to DIR/init.lua (creating it if needed), and writes the
// .luarc.json line that points an editor at moonpool's annotations. Never overwrites a file, and a
// directory that cannot hold the files (/proc, a file, a FIFO, read-only) fails at once, saying why.
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeDirectory } from '../../core/index.js';
import { UsageError, type CliInput } from '../cli-options.js';
import { displayPath } from '../diagnostic-format.js';
import { commandAsRun } from '../invocation.js';
import { commandConfig, type Output } from '../open-host.js';
import { newToolModule } from '../new-tool-template.js';

const NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
const ANNOTATIONS = fileURLToPath(new URL('../../../workers/lua/meta', import.meta.url));

export function newTool(input: CliInput, output: Output): number {
  const [name, ...extra] = input.positionals;
  if (name === undefined || extra.length > 0)
    throw new UsageError('new takes one tool name: moonpool new NAME [--dir DIR]');
  if (!NAME_PATTERN.test(name))
    throw new UsageError(`a new tool's name is a Lua identifier of at most 64 characters (got '${name}')`);
  const config = commandConfig(input);
  // Without a config of their own, a user's first tool starts their config, never the bundled demo.
  const dir =
    input.dir ??
    (config.source === 'bundled'
      ? join(process.env['XDG_CONFIG_HOME'] || join(homedir(), '.config'), 'moonpool')
      : dirname(config.file));
  try {
    if (!writeTool(name, dir, output)) return 2;
  } catch (error) {
    output.stderr.write(`moonpool: cannot write the new tool in ${displayPath(dir)}: ${(error as Error).message}\n`);
    return 2;
  }
  output.stdout.write(
    `try it: ${commandAsRun()} call ${name} '{"who":"Ada"}'${input.dir ? ` --config ${displayPath(dir)}` : ''}\n`,
  );
  return 0;
}

/** Writes the module, the require line and .luarc.json; false when the module exists (said on stderr). Throws on a file system failure. */
function writeTool(name: string, dir: string, output: Output): boolean {
  const module = join(dir, 'lua', `${name}.lua`);
  const init = join(dir, 'init.lua');
  // Reading an init.lua that is a FIFO would wait for a writer for ever: refused before anything is written.
  if (existsSync(init) && !statSync(init).isFile()) throw new Error(`${displayPath(init)} is not a regular file`);
  if (existsSync(module)) {
    output.stderr.write(`moonpool: ${displayPath(module)} exists already; nothing was written\n`);
    return false;
  }
  makeDirectory(dirname(module));
  writeFileSync(module, newToolModule(name), { flag: 'wx' });
  output.stdout.write(`wrote ${displayPath(module)}\n`);

  const requireLine = `require('${name}')`;
  if (!existsSync(init)) {
    writeFileSync(init, `-- moonpool config: each tool lives in a module under lua/.\n${requireLine}\n`, {
      flag: 'wx',
    });
    output.stdout.write(`wrote ${displayPath(init)}\n`);
  } else if (!readFileSync(init, 'utf8').includes(requireLine)) {
    appendFileSync(init, `${readFileSync(init, 'utf8').endsWith('\n') ? '' : '\n'}${requireLine}\n`);
    output.stdout.write(`added ${requireLine} to ${displayPath(init)}\n`);
  }

  const luarc = join(dir, '.luarc.json');
  if (!existsSync(luarc)) {
    writeFileSync(luarc, `${JSON.stringify({ 'workspace.library': [ANNOTATIONS] }, null, 2)}\n`, { flag: 'wx' });
    output.stdout.write(`wrote ${displayPath(luarc)} (editor completion for the moonpool API)\n`);
  }
  return true;
}
