// mcp-realistic: a tool doing about 2 ms of Lua a call, served by `moonpool mcp` and by a plain
// SDK server in JavaScript that runs the same Lua in-process with wasmoon, both driven by the
// SDK's client over stdio, both started and warmed first, then timed in alternating rounds:
// sequential tools/call latency, p50 of all rounds' calls. What moonpool's isolation costs a tool
// that does some work.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callText, connectMcp, type McpServer } from './mcp-client.js';
import { compare, type ScenarioResult } from './scenario.js';
import { SPIN_CONFIG, SPIN_SOURCE, spinSteps } from './spin.js';
import { percentile } from './stats.js';

const CLI = fileURLToPath(new URL('../ui/cli.js', import.meta.url));
const PLAIN_SERVER = fileURLToPath(new URL('./mcp-plain-lua-server.js', import.meta.url));
const LUA_MS = 2;
/** Calls each server answers before timing: V8 optimizes wasmoon's code only after a while. */
const WARM_UP_MS = 1500;
const ROUNDS = 10;
const CALLS_PER_ROUND = 100;
const TOOL = 'spin_a';

export async function mcpRealistic(): Promise<ScenarioResult> {
  const steps = await spinSteps(LUA_MS);
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-mcp-'));
  const servers: McpServer[] = [
    { name: 'moonpool mcp', command: [CLI, 'mcp', '--config', SPIN_CONFIG] },
    { name: 'plain SDK server', command: [PLAIN_SERVER, SPIN_SOURCE] },
  ];
  // Both run the same loop on the same argument: every answer must be the first one.
  let expected: string | undefined;
  const call = async (client: Client): Promise<void> => {
    const answer = await callText(client, TOOL, { n: steps });
    expected ??= answer;
    if (answer !== expected) throw new Error(`${TOOL} answered ${answer}, before ${expected}`);
  };
  const clients: Client[] = [];
  try {
    for (const server of servers) {
      const { client } = await connectMcp(server, stateDir, TOOL);
      clients.push(client);
      const warmUntil = performance.now() + WARM_UP_MS;
      while (performance.now() < warmUntil) await call(client);
    }
    const latencies = clients.map((): number[] => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [index, client] of clients.entries()) {
        for (let i = 0; i < CALLS_PER_ROUND; i++) {
          const started = performance.now();
          await call(client);
          latencies[index]!.push(performance.now() - started);
        }
      }
    }
    const [ours, theirs] = latencies.map((values) => percentile(values, 50)) as [number, number];
    const result = compare(
      'mcp-realistic',
      'ms p50',
      ours,
      { name: 'plain SDK server, same Lua in-process, p50', value: theirs },
      { max: 1.25 },
    );
    return { ...result, note: `${steps} loop steps, about ${LUA_MS} ms of Lua a call` };
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    rmSync(stateDir, { recursive: true, force: true });
  }
}
