// A child process for the session-log tests: makes a few calls and exits at once without closing
// its host, so only the log's exit hook can write the records still queued.
import { join } from 'node:path';
import { ToolHost } from '../core/index.js';
import { FIXTURES } from './helpers.js';

const [stateDir, sessionId, count] = process.argv.slice(2);
const host = await ToolHost.start({
  config: join(FIXTURES, 'snapshots', 'init.lua'),
  stateDir: stateDir!,
  sessionId: sessionId!,
  cwd: stateDir!,
});
for (let i = 0; i < Number(count); i++) await host.call('waits', { seconds: 0 });
process.exit(0);
