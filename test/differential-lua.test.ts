// Differential tests of print, warn, os, require, loadfile and dofile: each snippet runs natively
// with lua5.4 and inside moonpool, and both must print the same lines (test/differential.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Differential, PREEXISTING_MODULE } from './differential.js';

const differential = await Differential.start();

const same = (source: string): Promise<void> => differential.same(source);

describe('print and warn', () => {
  test('print converts with __tostring, never the global tostring', () =>
    same(`
local shown = setmetatable({}, { __tostring = function() return 'shown' end })
local saved = tostring
tostring = function() return 'global tostring' end
print(1, 'a', nil, true, shown, 2.0, -0.0, 1e300, math.mininteger)
tostring = saved
print(pcall(print, setmetatable({}, { __tostring = function() return 42 end })))
`));

  test('print is a C function, as in native Lua', () =>
    same(`
local info = debug.getinfo(print, 'Su')
print(info.what, info.short_src, info.nups, info.isvararg, info.nparams)
print(pcall(string.dump, print))
print(pcall(debug.upvaluejoin, print, 1, function() end, 1))
`));

  test('warn writes "Lua warning: " lines once turned on, and checks its arguments', async () => {
    const { nativeErrors, moonpool } = await differential.run(`
warn('hidden: warnings start off')
warn('@on')
warn('one ', 'message ', 'in parts')
warn('@off')
warn('hidden again')
warn('@on')
warn('last')
local ok, message = pcall(warn, 'a', 1, {})
io.stderr:write(tostring(ok), ' ', message, '\\n')
`);
    assert.ok(nativeErrors.length > 0);
    assert.deepEqual(moonpool, nativeErrors);
  });
});

describe('os', () => {
  test('getenv needs a name, and rename and remove fail with their messages', () =>
    same(`
print(pcall(function() local value = os.getenv() return value end))
print(os.getenv('HOME') == nil, os.getenv('MOONPOOL_SURELY_UNSET'))
print(os.rename('no-such-file.txt', 'other.txt'))
print(os.remove('no-such-file.txt'))
local path = os.tmpname()
print(io.open(path) ~= nil, os.remove(path))
`));

  test('setlocale knows only the C locale', () =>
    same(`
print(os.setlocale(), os.setlocale('C'), os.setlocale('POSIX'), os.setlocale('pt_BR'), os.setlocale('C', 'numeric'))
print(os.setlocale('pt_BR.UTF-8', 'all'), os.setlocale(nil, 'all'), tonumber('3,4'), tonumber('3.4'))
`));
});

describe('require', () => {
  test('the standard libraries are the globals', () =>
    same(`
print(require('io') == io, require('os') == os, require('string') == string, require('debug') == debug)
print(#package.searchers, package.cpath == nil)
`));

  test('modules are found on ./?.lua from the working directory', () =>
    same(`
local f = assert(io.open('local_module.lua', 'w'))
f:write("return { answer = 42, name = ... }")
f:close()
local module = require('local_module')
print(module.answer, module.name, package.loaded.local_module == module)
`));

  test('searchpath reports every template, and odd paths are simply not found', () =>
    same(`
print(package.searchpath('x.y', 'a/?.lua;b/?/init.lua;;c'))
print(package.searchpath('x', ''))
local f = assert(io.open('plain.txt', 'w')); f:close()
print(package.searchpath('x', 'plain.txt/?.lua'))
print(select('#', package.searchpath('x', string.rep('d', 5000) .. '/?.lua')))
print(package.searchpath('a_b', './?.lua', '_', '/'))
print(pcall(package.searchpath, {}, ''))
`));

  test('a bad package.path and a broken module fail with loadlib messages', () =>
    same(`
local saved = package.path
package.path = {}
print(pcall(require, 'nothing_at_all'))
package.path = saved
local f = assert(io.open('broken_module.lua', 'w')); f:write('return {'); f:close()
local ok, message = pcall(require, 'broken_module')
-- moonpool names chunks by their real path, natively they keep the path they were found by.
print(ok, (message:gsub("[^%s']*/", '')))
`));
});

describe('loadfile and dofile', () => {
  test('skip a first line starting with # and a byte order mark', () =>
    same(`
local f = assert(io.open('script.lua', 'w'))
f:write('#!/usr/bin/env lua\\nreturn 1 + 1, debug.getinfo(1, "l").currentline\\n'); f:close()
print(dofile('script.lua'))
f = assert(io.open('bom.lua', 'w'))
f:write('\\239\\187\\191# comment after the mark\\nreturn "bom", debug.getinfo(1, "l").currentline\\n'); f:close()
print(loadfile('bom.lua')())
f = assert(io.open('binary.lua', 'wb'))
f:write('# comment before a binary chunk\\n', string.dump(function() return 'binary' end)); f:close()
print(loadfile('binary.lua')())
`));

  test('an explicit nil environment is used, and modes are checked', () =>
    same(`
local f = assert(io.open('env.lua', 'w')); f:write('return print'); f:close()
local ok, message = pcall(loadfile('env.lua', 't', nil))
print(ok, (message:gsub('^.*/', '')))
print(loadfile('env.lua', 't', { print = 'own' })())
print(loadfile('env.lua', 'b'))
print(loadfile('no-such-file.lua'))
print(pcall(dofile, 'no-such-file.lua'))
`));

  test('a file rewritten at run time is loaded with its new content', () =>
    same(`
print(dofile('${PREEXISTING_MODULE}'))
local f = assert(io.open('${PREEXISTING_MODULE}', 'w')); f:write("return 'as rewritten'"); f:close()
print(dofile('${PREEXISTING_MODULE}'), loadfile('${PREEXISTING_MODULE}')(), (require('preexisting')))
f = assert(io.open('${PREEXISTING_MODULE}', 'w')); f:write("return 'as the config loaded it'"); f:close()
`));
});
