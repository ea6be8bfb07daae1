// Hostile input — the model writes the arguments, tools print anything: quoting survives every
// byte, arguments cannot pollute or exhaust the host, schemas cannot make ajv misbehave, and no
// name or id from outside can put a file outside the state directory.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { ToolHost, MoonpoolError, type CallResult } from '../core/index.js';
import { compileParameters, createSchemaCompiler } from '../core/schema-compiler.js';
import { CLI, FIXTURES, startHost, tempDir } from './helpers.js';

describe('hostile input', async () => {
  const host = await startHost('hostile');

  test('10,000 random strings over bytes 1-255 each survive shquote and sh unchanged', async () => {
    const result = await host.call('shquote_roundtrip', { count: 10_000, seed: 20261130 });
    assert.deepEqual([result.status, result.content], ['ok', '10000 strings survived']);
  });

  test('arguments of 10 MB, or nested 10,000 deep, are refused at once with a clear error', async () => {
    const text = 'x'.repeat(10 * 1024 * 1024);
    let nested: unknown = {};
    for (let i = 0; i < 10_000; i++) nested = { nested };
    const settled: string[] = [];
    const call = (label: string, args: unknown): Promise<CallResult> =>
      host.call('takes_text', args).then((result) => (settled.push(label), result));
    // At once: both are refused before a healthy call started ahead of them has come back from its worker.
    const [healthy, big, deep] = await Promise.all([
      call('healthy', { text: 'ok' }),
      call('big', { text }),
      call('deep', { nested }),
    ]);
    assert.equal(big.status, 'invalid_args');
    assert.match(big.content, /args: larger than 4194304 characters/);
    assert.equal(deep.status, 'invalid_args');
    assert.match(deep.content, /args: nested deeper than 64 levels/);
    assert.equal(healthy.status, 'ok', healthy.content);
    assert.deepEqual(settled, ['big', 'deep', 'healthy']);
  });

  test('__proto__, constructor and prototype keys reach the tool as plain data and pollute nothing', async () => {
    const args = JSON.parse(
      '{"text":"ok","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    ) as unknown;
    const result = await host.call('takes_text', args);
    assert.equal(result.status, 'ok');
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    assert.equal((Object.prototype as Record<string, unknown>)['polluted'], undefined);
  });

  test('patterns run on a linear-time engine: nested quantifiers load, backreferences and long patterns are refused', () => {
    const ajv = createSchemaCompiler();
    const withPattern = (pattern: string): ReturnType<typeof compileParameters> =>
      compileParameters(ajv, { type: 'object', properties: { s: { type: 'string', pattern } } });
    assert.ok('validate' in withPattern('^(a+)+$'));
    assert.ok('validate' in compileParameters(ajv, { type: 'object', patternProperties: { '^(\\w*)*$': {} } }));
    const refused = withPattern('^(a+)\\1$');
    assert.ok('problems' in refused);
    assert.match(
      refused.problems[0]!.message,
      /parameters\.properties\.s\.pattern: the pattern cannot run in linear time/,
    );
    assert.ok(
      'problems' in
        compileParameters(ajv, { type: 'object', properties: { s: { type: 'string', pattern: 'a'.repeat(1001) } } }),
    );
  });

  test('$data references are not evaluated: ajv treats them as an unknown keyword', () => {
    const result = compileParameters(createSchemaCompiler(), {
      type: 'object',
      properties: { a: { type: 'number', maximum: { $data: '1/b' } } },
    });
    assert.ok('problems' in result);
  });

  test('a queue or a number of CPU slots too large to hold is refused as an option, not met as a failing call', async () => {
    for (const options of [{ maxQueuePerModule: 1e8 }, { cpuSlots: 2 ** 32 + 1 }]) {
      await assert.rejects(
        ToolHost.start({ config: `${FIXTURES}/hostile`, stateDir: tempDir(), ...options }),
        (error: unknown) => {
          assert.ok(error instanceof MoonpoolError);
          assert.equal(error.code, 'INVALID_OPTION');
          assert.match(error.message, /must be at most 65536/);
          return true;
        },
      );
    }
  });

  test('a session id or a replayed session that would leave the state directory is refused', async () => {
    await assert.rejects(
      ToolHost.start({ config: `${FIXTURES}/hostile`, stateDir: tempDir(), sessionId: '../../etc' }),
      (error: unknown) => {
        assert.ok(error instanceof MoonpoolError);
        assert.equal(error.code, 'INVALID_OPTION');
        return true;
      },
    );
    const replay = spawnSync(
      process.execPath,
      [CLI, 'replay', '../../../etc/passwd', '--config', `${FIXTURES}/hostile`, '--state-dir', tempDir()],
      { encoding: 'utf8' },
    );
    assert.equal(replay.status, 2);
    assert.match(
      replay.stderr,
      /^moonpool: '\.\.\/\.\.\/\.\.\/etc\/passwd' is not a session id \(1-64 letters, digits, _ and -/,
    );
  });
});
