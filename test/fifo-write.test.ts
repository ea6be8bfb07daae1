// A write to a FIFO whose reader is slower than the writer waits for it, as a blocking write
// would, and delivers every byte; the worker stays free, so a reader that never reads leaves the
// call to its timeout.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, openSync, readSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startHost, tempDir } from './helpers.js';

const BYTES = 1_000_000;
const dir = realpathSync(tempDir('moonpool-fifo-write-'));
const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const config = join(dir, 'init.lua');
writeFileSync(
  config,
  `local function write_all(args)
  local file = assert(io.open(args.path, 'w'))
  local written, message, code = file:write(string.rep('z', ${BYTES}))
  file:close()
  return tostring(written == file) .. ' | ' .. tostring(message) .. ' | ' .. tostring(code)
end
-- The write runs inside a C function (a gsub callback), where nothing can wait.
local function write_in_callback(args)
  local result
  string.gsub('x', 'x', function() result = write_all(args) end)
  return result
end
agent.on('discover_tools', function(registry)
  registry:add { name = 'write_fifo', description = 'x', timeout = 60, run = write_all }
  registry:add { name = 'write_fifo_in_callback', description = 'x', timeout = 60, run = write_in_callback }
  registry:add { name = 'write_fifo_briefly', description = 'x', timeout = 1, run = write_all }
end)
`,
);
const host = await startHost(config, { cwd: dir });

/** The FIFO's read end, opened here so that the tool's open for writing finds a reader. */
function openReader(): number {
  const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  after(() => closeSync(fd));
  return fd;
}

/** Reads `fd` a chunk every 20 ms, slower than a write fills the pipe, until the writer has closed it. */
async function readSlowly(fd: number, done: Promise<unknown>): Promise<number> {
  const chunk = Buffer.alloc(65536);
  let total = 0;
  let writerClosed = false;
  void done.then(() => (writerClosed = true));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    let read: number;
    try {
      read = readSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      throw error;
    }
    total += read;
    if (read === 0 && writerClosed) return total;
  }
}

describe('writing to a FIFO', () => {
  test('waits for a slow reader and delivers every byte', async () => {
    const reader = openReader();
    const call = host.call('write_fifo', { path: fifo });
    const [result, received] = await Promise.all([call, readSlowly(reader, call)]);
    assert.deepEqual([result.status, result.content], ['ok', 'true | nil | nil']);
    assert.equal(received, BYTES);
  });

  test('to a reader that goes away fails with Broken pipe, as natively', async () => {
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const call = host.call('write_fifo', { path: fifo });
    // Once the tool's first bytes arrive (it has the FIFO open), the reader goes.
    for (const byte = Buffer.alloc(1); ; await new Promise((resolve) => setTimeout(resolve, 10))) {
      try {
        if (readSync(reader, byte) > 0) break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      }
    }
    closeSync(reader);
    const result = await call;
    assert.deepEqual([result.status, result.content], ['ok', 'false | Broken pipe | 32']);
  });

  test('inside a C function, where nothing can wait, answers at once as EAGAIN', async () => {
    openReader();
    const result = await host.call('write_fifo_in_callback', { path: fifo });
    assert.deepEqual([result.status, result.content], ['ok', 'false | Resource temporarily unavailable | 11']);
  });

  test('to a reader that never reads is stopped by the call’s timeout', async () => {
    openReader();
    const result = await host.call('write_fifo_briefly', { path: fifo });
    assert.equal(result.status, 'timeout');
  });
});
