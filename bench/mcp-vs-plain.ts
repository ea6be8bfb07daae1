// mcp-vs-plain-server, a guard on the MCP layer (mcp-realistic holds the goal for real tools):
// what an MCP call through `moonpool mcp` costs beside a plain SDK server in JavaScript serving
// the same no-op `echo` tool, both driven by the SDK's client over stdio, measured in alternating
// rounds of one run: connect + tools/list, sequential call latency (p50), and throughput of
// CONCURRENT_CALLS calls kept IN_FLIGHT at a time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BENCH_FIXTURES } from './fixtures.js';
import { callText, connectMcp, type McpServer } from './mcp-client.js';
import { compare, type ScenarioResult } from './scenario.js';
import { median, percentile } from './stats.js';

const CLI = fileURLToPath(new URL('../ui/cli.js', import.meta.url));
const PLAIN_SERVER = fileURLToPath(new URL('./mcp-plain-server.js', import.meta.url));
const ROUNDS = 3;
const SEQUENTIAL_CALLS = 2000;
const WARMUP_CALLS = 300;
const CONCURRENT_CALLS = 1500;
/** Calls in flight at once: under moonpool's queue limit per module (256), past which calls are refused as busy. */
const IN_FLIGHT = 250;

interface RoundFigures {
  connectMs: number;
  latencyP50Ms: number;
  callsPerSecond: number;
}

async function echo(client: Client, text: string): Promise<void> {
  const answer = await callText(client, 'echo', { text });
  if (answer !== text) throw new Error(`echo answered ${JSON.stringify(answer)} to ${JSON.stringify(text)}`);
}

async function round(server: McpServer, stateDir: string): Promise<RoundFigures> {
  const { client, ms } = await connectMcp(server, stateDir, 'echo');
  try {
    for (let i = 0; i < WARMUP_CALLS; i++) await echo(client, `warm ${i}`);
    const latencies: number[] = [];
    for (let i = 0; i < SEQUENTIAL_CALLS; i++) {
      const started = performance.now();
      await echo(client, `call ${i}`);
      latencies.push(performance.now() - started);
    }
    const started = performance.now();
    let next = 0;
    const lane = async (): Promise<void> => {
      while (next < CONCURRENT_CALLS) await echo(client, `burst ${next++}`);
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    const seconds = (performance.now() - started) / 1000;
    return { connectMs: ms, latencyP50Ms: percentile(latencies, 50), callsPerSecond: CONCURRENT_CALLS / seconds };
  } finally {
    await client.close();
  }
}

export async function mcpVsPlainServer(): Promise<ScenarioResult[]> {
  const stateDir = mkdtempSync(join(tmpdir(), 'moonpool-bench-mcp-'));
  const moonpool: McpServer = {
    name: 'moonpool mcp',
    command: [CLI, 'mcp', '--config', join(BENCH_FIXTURES, 'echo', 'init.lua')],
  };
  const plain: McpServer = { name: 'plain SDK server', command: [PLAIN_SERVER] };
  const ours: RoundFigures[] = [];
  const theirs: RoundFigures[] = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      ours.push(await round(moonpool, stateDir));
      theirs.push(await round(plain, stateDir));
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
  const figure = (rounds: RoundFigures[], key: keyof RoundFigures): number => median(rounds.map((entry) => entry[key]));
  return [
    compare(
      'mcp-latency',
      'ms',
      figure(ours, 'latencyP50Ms'),
      { name: 'plain SDK server, p50', value: figure(theirs, 'latencyP50Ms') },
      { max: 3 },
    ),
    compare(
      'mcp-throughput',
      'calls/s',
      figure(ours, 'callsPerSecond'),
      { name: `plain SDK server, ${IN_FLIGHT} in flight`, value: figure(theirs, 'callsPerSecond') },
      { min: 0.5 },
    ),
    compare(
      'mcp-connect',
      'ms',
      figure(ours, 'connectMs'),
      { name: 'plain SDK server, connect + tools/list', value: figure(theirs, 'connectMs') },
      { max: 1.5 },
    ),
  ];
}
