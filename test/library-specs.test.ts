// Real Lua code runs unmodified: a library's own busted-style specs, run by the project's spec
// runner (conformance/spec-runner.lua), print the same lines natively (`lua5.4`) and inside
// moonpool. The runner is tried on a small library of its own (test/fixtures/spec-library, with a
// test failing on purpose); the four libraries in ../shared/real-lua-libs run when that folder is
// beside the clone, as the conformance run uses ../shared/lua-5.4.4-tests.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { runLibrarySpecs } from '../conformance/library-specs.js';
import { FIXTURES, ROOT } from './helpers.js';

const REAL_LIBRARIES = join(ROOT, '..', 'shared', 'real-lua-libs');
const LIBRARIES = ['argparse', 'binser', 'md5.lua', 'i18n.lua'];

test('the spec runner prints each test the same natively and in moonpool, failures too', async () => {
  const { native, moonpool } = await runLibrarySpecs(join(FIXTURES, 'spec-library'));
  assert.equal(native.passed, false);
  assert.equal(native.lines.at(-1), '7 passed, 2 failed, 1 pending');
  assert.ok(
    native.lines.includes(
      'FAIL a stack fails on purpose, naming what differs: expected { [1] = 1, [2] = 2 }, got { [1] = 1, [2] = 3 }',
    ),
  );
  assert.ok(
    native.lines.includes(
      "FAIL a stack reports a runtime error with its position: spec/stack_spec.lua:47: attempt to index a nil value (local 't')",
    ),
  );
  assert.deepEqual(moonpool, native);
});

describe(
  'the specs of real Lua libraries',
  { skip: !existsSync(REAL_LIBRARIES) && `${REAL_LIBRARIES} is not there` },
  () => {
    for (const library of LIBRARIES) {
      test(`${library}: every spec passes natively, and moonpool prints the same`, async () => {
        const { native, moonpool } = await runLibrarySpecs(join(REAL_LIBRARIES, library));
        assert.ok(native.passed, `natively:\n${native.lines.filter((line) => !line.startsWith('ok ')).join('\n')}`);
        assert.match(native.lines.at(-1) ?? '', /^\d+ passed, 0 failed, 0 pending$/);
        assert.deepEqual(moonpool, native);
      });
    }
  },
);
