// `moonpool mcp` against a client that asks for large spill files many at once: every request is
// answered, the server's heap stays bounded by a few answers (it runs under a heap limit far below
// what the answers add up to), and a client that closes stdin without reading is seen at once.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { after, test } from 'node:test';
import { CLI, tempDir } from './helpers.js';

/** Each file is made of control bytes, which JSON escapes six-fold: 2 MiB make a 12 M-character answer. */
const FILE_BYTES = 2 * 1024 * 1024;

const TOOLS = `
agent.on('discover_tools', function(registry)
  registry:add {
    name = 'fill',
    description = 'Writes a file of control bytes into its spill directory and returns its path.',
    parameters = { type = 'object', properties = { bytes = { type = 'integer' } }, required = { 'bytes' } },
    run = function(args, ctx)
      local path = ctx.spill_dir .. '/control.txt'
      os.execute(('mkdir -p %s && head -c %d /dev/zero | tr "\\\\000" "\\\\001" > %s'):format(shquote(ctx.spill_dir), args.bytes, shquote(path)))
      return path
    end,
  }
end)
`;

interface Answer {
  id?: unknown;
  result?: { content?: { text: string }[]; contents?: { text?: string }[] };
  error?: { code: number; message: string };
}

const servers: ReturnType<typeof spawn>[] = [];
after(() => {
  for (const server of servers) if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
});

function startServer(dir: string, heapMb: number) {
  writeFileSync(join(dir, 'init.lua'), TOOLS);
  const server = spawn(
    process.execPath,
    [CLI, 'mcp', '--config', join(dir, 'init.lua'), '--state-dir', join(dir, 'state'), '--cwd', dir],
    {
      env: { ...process.env, MOONPOOL_CONFIG: '', NODE_OPTIONS: `--max-old-space-size=${heapMb}` },
    },
  );
  servers.push(server);
  const send = (...messages: object[]): void =>
    void server.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
  send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { server, send };
}

/** The server's answers by id as they come, until `stopReading()`: from then on stdout is left unread. */
function readAnswers(server: ReturnType<typeof spawn>) {
  const answers = new Map<unknown, Answer>();
  let wake: () => void = () => undefined;
  const lines = createInterface({ input: server.stdout! });
  lines.on('line', (line) => {
    const answer = JSON.parse(line) as Answer;
    answers.set(answer.id, answer);
    wake();
  });
  server.once('exit', () => wake());
  const until = async (check: () => boolean): Promise<void> => {
    while (!check() && server.exitCode === null) await new Promise<void>((resolve) => (wake = resolve));
  };
  const stopReading = (): void => {
    lines.close();
    server.stdout!.pause();
  };
  return { answers, until, stopReading };
}

async function fillFile(
  send: (...messages: object[]) => void,
  reader: ReturnType<typeof readAnswers>,
): Promise<string> {
  send({
    jsonrpc: '2.0',
    id: 'fill',
    method: 'tools/call',
    params: { name: 'fill', arguments: { bytes: FILE_BYTES } },
  });
  await reader.until(() => reader.answers.has('fill'));
  return pathToFileURL(reader.answers.get('fill')?.result?.content?.[0]?.text ?? '').href;
}

test(
  'twelve reads of a 2 MiB file of control bytes in one write, then a ping: all answered under a 64 MB heap',
  { timeout: 120_000 },
  async () => {
    const { server, send } = startServer(tempDir(), 64);
    const reader = readAnswers(server);
    const uri = await fillFile(send, reader);
    const reads = Array.from({ length: 12 }, (_, index) => ({
      jsonrpc: '2.0',
      id: `read-${index}`,
      method: 'resources/read',
      params: { uri },
    }));
    send(...reads, { jsonrpc: '2.0', id: 'ping', method: 'ping' });
    await reader.until(() => reader.answers.has('ping') && reads.every((read) => reader.answers.has(read.id)));
    assert.equal(server.exitCode, null, 'the server died');
    for (const read of reads)
      assert.equal(reader.answers.get(read.id)?.result?.contents?.[0]?.text?.length, FILE_BYTES, read.id);
    server.stdin.end();
    await once(server, 'exit');
  },
);

test(
  'a client that sends reads, never reads their answers and closes stdin: the server exits',
  { timeout: 60_000 },
  async () => {
    const { server, send } = startServer(tempDir(), 1024);
    const reader = readAnswers(server);
    const uri = await fillFile(send, reader);
    reader.stopReading();
    send(
      ...Array.from({ length: 4 }, (_, index) => ({
        jsonrpc: '2.0',
        id: `unread-${index}`,
        method: 'resources/read',
        params: { uri },
      })),
    );
    send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    server.stdin.end();
    if (server.exitCode === null) await once(server, 'exit');
    assert.equal(server.exitCode, 0);
  },
);
