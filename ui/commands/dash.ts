// `moonpool` / `moonpool dash`: the terminal dashboard. With --session it first shows that
// session's blocks, re-rendered, and appends new calls to it; on the way out it says how to resume.
import { constants } from 'node:os';
import type { ToolHost } from '../../core/index.js';
import type { CliInput } from '../cli-options.js';
import { Dashboard } from '../dashboard/dashboard.js';
import { commandAsRun } from '../invocation.js';
import { commandConfig, configNotice, type Output } from '../open-host.js';

const STOP_SIGNALS = ['SIGTERM', 'SIGHUP'] as const;

export async function runDashboard(host: ToolHost, input: CliInput, output: Output): Promise<number> {
  const stdout = output.stdout as NodeJS.WriteStream;
  if (!stdout.isTTY || !process.stdin.isTTY) {
    output.stderr.write(
      `moonpool: the dashboard needs a terminal; '${commandAsRun()} list' and '${commandAsRun()} call' work without one\n`,
    );
    return 2;
  }
  // The welcome's first line is `config PATH`: the notice need not name the demo's path again.
  const notice = configNotice(commandConfig(input), false);
  const dashboard = new Dashboard({
    host,
    ...(input.session === undefined ? {} : { resumeSession: input.session }),
    ...(notice === undefined ? {} : { notices: [notice] }),
  });
  // Stopped from outside (SIGTERM, or SIGHUP: its terminal closed), it quits as on Ctrl-C, ending
  // the calls that run and their commands. Kept for good, not once: a second signal meanwhile would
  // otherwise kill the process before they have ended.
  let stoppedBy: NodeJS.Signals | undefined;
  const stop = (signal: NodeJS.Signals): void => {
    stoppedBy ??= signal;
    void dashboard.quit();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  await dashboard.done;
  for (const signal of STOP_SIGNALS) process.off(signal, stop);
  if (stoppedBy !== undefined) return 128 + constants.signals[stoppedBy];
  const named = [
    input.config === undefined ? '' : ` --config ${input.config}`,
    input.stateDir === undefined ? '' : ` --state-dir ${input.stateDir}`,
  ].join('');
  output.stderr.write(`resume with: ${commandAsRun()} --session ${host.sessionId}${named}\n`);
  return 0;
}
