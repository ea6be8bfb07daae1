// A session written before a test starts: its log is one finished call of the `snapshots`
// fixture's `waits` tool, repeated, which makes a log of tens of megabytes in a fraction of a
// second. The resuming and reading tests use it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeRecord, sessionLogPath } from '../core/session-log.js';
import { tempDir } from './helpers.js';

/** One old call's framed record. */
export const OLD_CALL_FRAME = encodeRecord({
  callId: 'old-1',
  tool: 'waits',
  args: { seconds: 0 },
  status: 'ok',
  content: 'waited',
  durationMs: 1,
  finishedAt: Date.now() - 3_600_000,
});

/** A new state dir holding the session `big`: `records` old calls, then `after`; its log's path and bytes. */
export function oldSession(records: number, after = Buffer.alloc(0)): { stateDir: string; log: string; bytes: Buffer } {
  const stateDir = tempDir();
  mkdirSync(join(stateDir, 'sessions'));
  const log = sessionLogPath(stateDir, 'big');
  const bytes = Buffer.concat([...Array.from({ length: records }, () => OLD_CALL_FRAME), after]);
  writeFileSync(log, bytes);
  return { stateDir, log, bytes };
}
