// Finds the config to load: the one named (ToolHost's `config`, the CLI's --config) >
// $MOONPOOL_CONFIG > $XDG_CONFIG_HOME/moonpool/init.lua (default ~/.config/moonpool/init.lua) >
// the bundled demo config. A directory means its init.lua.
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MoonpoolError } from './errors.js';

/** The demo config shipped with the package, used when the user has none. */
export const BUNDLED_CONFIG = fileURLToPath(new URL('../../examples/demo/init.lua', import.meta.url));

export interface ResolvedConfig {
  file: string;
  source: 'option' | 'environment' | 'user' | 'bundled';
  /** Where the user's own config was looked for ($XDG_CONFIG_HOME or ~/.config), when it was. */
  userFile?: string;
}

export interface ConfigLookup {
  /** What the caller calls `explicit` in a config-not-found message (the CLI: `--config`). */
  explicitFrom?: string;
  env?: NodeJS.ProcessEnv;
}

export function resolveConfig(
  explicit: string | undefined,
  { explicitFrom = 'the `config` option', env = process.env }: ConfigLookup = {},
): ResolvedConfig {
  const named = explicit ?? env['MOONPOOL_CONFIG'];
  if (named) {
    const absolute = resolve(named);
    const file = existsSync(absolute) && statSync(absolute).isDirectory() ? join(absolute, 'init.lua') : absolute;
    if (!existsSync(file)) {
      const where = explicit ? explicitFrom : '$MOONPOOL_CONFIG';
      throw new MoonpoolError('CONFIG_NOT_FOUND', `config not found: ${file} (from ${where})`, { file });
    }
    return { file, source: explicit ? 'option' : 'environment' };
  }
  const configHome = env['XDG_CONFIG_HOME'] || join(homedir(), '.config');
  const user = join(configHome, 'moonpool', 'init.lua');
  if (existsSync(user)) return { file: user, source: 'user', userFile: user };
  return { file: BUNDLED_CONFIG, source: 'bundled', userFile: user };
}
