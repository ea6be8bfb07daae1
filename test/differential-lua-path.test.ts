// LUA_PATH_5_4 / LUA_PATH and LUA_CPATH_5_4 / LUA_CPATH set `package.path` and `package.cpath`
// as natively (the versioned name first, ';;' standing for the default), with the config's
// directory still first in moonpool. The environment is set before the host starts, so this file
// has a host of its own (test/differential.ts).
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Differential } from './differential.js';

process.env['LUA_PATH_5_4'] = './libs/?.lua;;./late/?.lua';
process.env['LUA_PATH'] = './ignored/?.lua';
process.env['LUA_CPATH_5_4'] = './native/?.so';
const differential = await Differential.start();

test('the environment sets package.path and package.cpath', async () => {
  mkdirSync(join(differential.dir, 'libs'), { recursive: true });
  mkdirSync(join(differential.dir, 'late'), { recursive: true });
  writeFileSync(join(differential.dir, 'libs', 'from_libs.lua'), "return 'found in libs'\n");
  writeFileSync(join(differential.dir, 'late', 'from_late.lua'), "return 'found after the default'\n");
  const { native, moonpool } = await differential.run(`
print(require('from_libs'), require('from_late'))
print(package.path:find('./libs/?.lua;', 1, true) ~= nil, package.path:find('./ignored', 1, true))
print(package.path:sub(-#'./?.lua;./?/init.lua;./late/?.lua'))
print(package.cpath)
`);
  assert.equal(native.length, 4);
  assert.deepEqual(moonpool, native);
});
