// A tool cannot reach another descriptor of the host process (a worker is one of its threads)
// by forging the io record behind one of its own handles: moonpool's frames show no locals to
// `debug`, and the file natives use only descriptors this worker opened and has not closed.
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { startHost, tempDir } from './helpers.js';
import { createFsNatives } from '../workers/fs-natives.js';
import { ChunkNames } from '../workers/chunk-names.js';
import { NativeError, type NativeCall } from '../workers/lua-natives.js';
import { PermissionGuard } from '../workers/permission-guard.js';
import type { WorkerConfig } from '../shared/protocol.js';

const dir = tempDir();
const secretPath = join(dir, 'secret.txt');
const targetPath = join(dir, 'target.txt');
writeFileSync(secretPath, 'the host secret');
writeFileSync(targetPath, '');
/** Descriptors of the host process (the test's own), outside every root of the tools. */
const secretFd = openSync(secretPath, 'r');
const targetFd = openSync(targetPath, 'a');
after(() => (closeSync(secretFd), closeSync(targetFd)));

describe('a tool with permissions = {} forging the record of its own handle', async () => {
  const host = await startHost('forged-records');

  test('does not read a descriptor the host holds open', async () => {
    const result = await host.call('read_fd', { fd: secretFd });
    assert.doesNotMatch(result.content, /the host secret/);
  });

  test('does not write to a descriptor the host holds open', async () => {
    const result = await host.call('write_fd', { fd: targetFd });
    assert.doesNotMatch(result.content, /^write: true/);
    assert.equal(readFileSync(targetPath, 'utf8'), '');
  });
});

test("moonpool's own frames show no locals to debug.getlocal or debug.setlocal, a tool's own do", async () => {
  const host = await startHost('forged-records');
  const result = await host.call('frames_locals', {});
  assert.equal(result.status, 'ok', result.content);
  assert.doesNotMatch(result.content, /\[moonpool\]:/);
  assert.match(result.content, /init\.lua:seen \S*init\.lua:mine \S*init\.lua:handle \S*init\.lua:trap /);
  assert.match(result.content, / set:nil /);
  assert.doesNotMatch(result.content, / set:(?!nil )/);
  assert.match(result.content, / seek parameter: nil visible$/);
});

describe('the file natives', () => {
  const config = { cwd: dir, sources: {} } as unknown as WorkerConfig;
  const natives = createFsNatives(
    config,
    new ChunkNames(),
    () => false,
    () => PermissionGuard.UNRESTRICTED,
  );
  /** A native call with these arguments (numbers, or strings as bytes). */
  const call = (...args: (number | string)[]): NativeCall =>
    ({
      argc: args.length,
      number: (index: number) => (typeof args[index - 1] === 'number' ? (args[index - 1] as number) : null),
      bytes: (index: number) => (typeof args[index - 1] === 'string' ? Buffer.from(args[index - 1] as string) : null),
      string: (index: number) => (typeof args[index - 1] === 'string' ? (args[index - 1] as string) : null),
      typeName: (index: number) => (index <= args.length ? typeof args[index - 1] : 'no value'),
    }) as unknown as NativeCall;
  const refused = (run: () => unknown, fd: number): void =>
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof NativeError);
      assert.equal(error.message, `bad file descriptor (${fd}): not a file this worker opened and has not closed`);
      return true;
    });

  test('refuse a descriptor they did not open: read, write, size, FIFO test and close', () => {
    refused(() => natives['fs_read']!(call(secretFd, 0, 100)), secretFd);
    refused(() => natives['fs_write']!(call(targetFd, -1, 'FORGED')), targetFd);
    refused(() => natives['fs_size']!(call(secretFd)), secretFd);
    refused(() => natives['fs_is_fifo']!(call(secretFd)), secretFd);
    refused(() => natives['fs_close']!(call(secretFd)), secretFd);
    assert.equal(readFileSync(targetPath, 'utf8'), '');
  });

  test('use a descriptor they opened until they close it', () => {
    const [fd] = natives['fs_open']!(call(secretPath, 'r')) as [number];
    assert.deepEqual(natives['fs_size']!(call(fd)), ['the host secret'.length]);
    assert.deepEqual(natives['fs_close']!(call(fd)), [true]);
    refused(() => natives['fs_read']!(call(fd, 0, 100)), fd);
  });
});
