// `--keep-sessions SPEC` and `$MOONPOOL_KEEP_SESSIONS`: how long and how much of the session
// history to keep. SPEC is an age (`30d`), a total size (`500MiB`, `1GB`), both (`14d,200MiB`) or
// `forever`; a limit SPEC does not name keeps its default. A bad SPEC names where it came from.
import {
  DEFAULT_SESSION_MAX_AGE_DAYS,
  DEFAULT_SESSION_MAX_TOTAL_BYTES,
  type SessionRetention,
  type ToolHostOptions,
} from '../core/index.js';
import { UsageError } from './cli-options.js';

export const KEEP_SESSIONS_ENV = 'MOONPOOL_KEEP_SESSIONS';

const UNIT_BYTES: Record<string, number> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

export function parseRetention(spec: string, source: string): SessionRetention {
  const retention: SessionRetention = {
    maxAgeDays: DEFAULT_SESSION_MAX_AGE_DAYS,
    maxTotalBytes: DEFAULT_SESSION_MAX_TOTAL_BYTES,
  };
  const bad = (why: string): UsageError =>
    new UsageError(`${source} ${why} (got '${spec}'); examples: 30d, 500MiB, 14d,200MiB, forever`);
  const parts = spec.split(',').map((part) => part.trim().toLowerCase());
  for (const part of parts) {
    const match = /^(\d+(?:\.\d+)?)([a-z]*)$/.exec(part);
    if (part === 'forever' && parts.length === 1) return { maxAgeDays: Infinity, maxTotalBytes: Infinity };
    if (!match) throw bad(`takes an age in days (30d) and/or a total size (500MiB), comma-separated`);
    const [, amount, unit] = match as unknown as [string, string, string];
    if (unit === 'd') retention.maxAgeDays = Number(amount);
    else if (unit in UNIT_BYTES) retention.maxTotalBytes = Math.floor(Number(amount) * UNIT_BYTES[unit]!);
    else
      throw bad(
        unit === ''
          ? `needs a unit after ${amount} (d for days, or B, KiB, MiB, GiB, KB, MB, GB)`
          : `does not know the unit '${unit}' (d, B, KiB, MiB, GiB, KB, MB, GB)`,
      );
  }
  return retention;
}

/** The retention from `--keep-sessions`, else `$MOONPOOL_KEEP_SESSIONS`, else undefined (the defaults). */
export function retentionFrom(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): SessionRetention | undefined {
  if (option !== undefined) return parseRetention(option, '--keep-sessions');
  const fromEnv = env[KEEP_SESSIONS_ENV];
  return fromEnv ? parseRetention(fromEnv, `$${KEEP_SESSIONS_ENV}`) : undefined;
}

/** retentionFrom as ToolHost options (none when the defaults apply). */
export function retentionOptions(
  option: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Pick<ToolHostOptions, 'sessionMaxAgeDays' | 'sessionMaxTotalBytes'> {
  const retention = retentionFrom(option, env);
  return retention === undefined
    ? {}
    : { sessionMaxAgeDays: retention.maxAgeDays, sessionMaxTotalBytes: retention.maxTotalBytes };
}
