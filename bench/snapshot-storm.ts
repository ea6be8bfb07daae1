// snapshot-storm: a million-iteration loop with ctx:show of each iteration's table against the
// same loop without it, medians of several runs interleaved in one process. ctx:show must cost
// little enough that a tool can call it freely (goal: at most 25% slower).
import { withHost } from './fixtures.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median, timeInterleaved } from './stats.js';

const RUNS = 7;

export async function snapshotStorm(): Promise<ScenarioResult> {
  return withHost('storm', async (host) => {
    let snapshots = 0;
    const [showing, plain] = await timeInterleaved(
      RUNS,
      1,
      1,
      async () => {
        const result = await host.call('showing', {}, { onSnapshot: () => snapshots++ });
        if (result.status !== 'ok') throw new Error(`showing: ${result.content}`);
      },
      async () => {
        const result = await host.call('plain', {});
        if (result.status !== 'ok') throw new Error(`plain: ${result.content}`);
      },
    );
    const perRun = Math.round(snapshots / (RUNS + 1));
    return {
      ...compare(
        'snapshot-storm',
        'ms median',
        median(showing),
        { name: 'the same loop without ctx:show', value: median(plain) },
        { max: 1.25 },
      ),
      note: `${perRun} snapshots reached the host per run of 1,000,000 ctx:show`,
    };
  });
}
