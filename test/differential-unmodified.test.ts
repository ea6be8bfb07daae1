// Differential tests of what real Lua code meets around the language: paths, the prelude's own
// references, the functions a stock Lua 5.4 build has, chunk names, buffering, `require`. Each
// snippet runs natively with lua5.4 and inside moonpool, and both must print the same lines
// (test/differential.ts).
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Differential } from './differential.js';

const differential = await Differential.start();

const same = (source: string): Promise<void> => differential.same(source);

describe('an empty path names no file', () => {
  test('every function taking a path fails with ENOENT and leaves the working directory alone', async () => {
    // The working directory is not empty: without the check, '' would be it, and the rename would move it.
    await same(`
print(io.open(''))
print(io.open('', 'w'))
print(os.remove(''))
print(os.rename('', 'elsewhere'))
print(os.rename('init.lua', ''))
print(loadfile(''))
print(pcall(dofile, ''))
print(pcall(io.lines, ''))
print(pcall(io.input, ''))
print(pcall(io.output, ''))
print(package.searchpath('', '?'))
print(select(2, pcall(require, '')) ~= nil)
`);
    assert.ok(readdirSync(differential.dir).includes('init.lua'));
  });
});

describe('the runtime keeps its own references to the libraries', () => {
  test('io, require and lines work after string and table functions are replaced or removed', () =>
    same(`
local f = assert(io.open('patched.txt', 'w'))
local saved = {}
for _, name in ipairs { 'find', 'sub', 'format', 'gmatch', 'gsub', 'match', 'byte', 'rep' } do
  saved[name] = string[name]
  string[name] = nil
end
local concat, pack, unpack = table.concat, table.pack, table.unpack
table.concat, table.pack, table.unpack = nil, nil, nil
f:write('one\\n', 42, ' ', 1.5, '\\n', 'three\\n')
f:close()
local g = assert(io.open('patched.txt'))
local first, second, rest = g:read('l', 'L', 'a')
g:close()
local lines = {}
for line in io.lines('patched.txt') do lines[#lines + 1] = line end
io.write('io.write works\\n')
local found = package.searchpath('patched', './?.txt')
local ok = pcall(require, 'no_such_module_anywhere')
for name, fn in pairs(saved) do string[name] = fn end
table.concat, table.pack, table.unpack = concat, pack, unpack
print(first, second, rest)
print(#lines, lines[1], lines[2], lines[3])
print(found, ok)
`));

  test('a library that copies its own functions into string does not make the prelude recurse', () =>
    same(`
local find = string.find
string.find = function(s, ...) return find(s, ...) end
string.sub = function(s, i, j) return s:sub(i, j) end
local f = assert(io.open('recursion.txt', 'w')); f:write('a\\nb\\n'); f:close()
print(pcall(function() for line in io.lines('recursion.txt') do io.write(line, '\\n') end end))
`));
});

describe('as a stock Lua 5.4 build (LUA_COMPAT_5_3)', () => {
  test('math.pow, log10, ldexp, frexp, cosh, sinh and tanh exist and agree', () =>
    same(`
local function show(...) local t = table.pack(...) for i = 1, t.n do t[i] = type(t[i]) == 'number' and string.format('%.14g', t[i]) or tostring(t[i]) end print(table.concat(t, ' ')) end
show(math.pow(2, 10), math.pow(2, 0.5), math.pow('3', 2), math.pow(-8, 1/3))
show(math.log10(1000), math.log10(2), math.log10(0))
print(math.pow(2, 10), math.log10(100), math.cosh(0), math.ldexp(3, 2), math.frexp(8))
print(math.sinh(-0.0), math.tanh(-0.0), math.sinh(0), math.cosh(-0.0), math.sinh(50), math.tanh(1/0), math.cosh(-1/0))
for _, x in ipairs { 0, -0.0, 1, -1, 0.5, 3, 1e300, -1e-310, 4.9e-324, 1/0, -1/0 } do
  local m, e = math.frexp(x)
  print(string.format('%a %d %s', m, e, math.type(e)), 1 / m, math.ldexp(m, e) == x)
end
print(math.frexp(0/0) ~= math.frexp(0/0), select(2, math.frexp(0/0)))
for _, case in ipairs { { 1, 1023 }, { 1, 1024 }, { 0.75, -1074 }, { 0.5, -1074 }, { 1, -1075 }, { 3, -1076 }, { 1.5, 2^31 + 1 }, { -1, 10 }, { 1, '3' } } do
  print(string.format('%.17g', math.ldexp(case[1], case[2])))
end
for _, x in ipairs { 0, 1, -1, 0.5, 20, -710, 1e-10 } do show(math.cosh(x), math.sinh(x), math.tanh(x)) end
print(pcall(math.pow, 1)); print(pcall(math.ldexp, 1, 1.5)); print(pcall(math.frexp, {}))
print(pcall(math.sinh)); print(pcall(math.log10, 'x'))
print(pcall(function() local x = math.ldexp(1, {}); return x end))
`));
});

describe('chunk names as given', () => {
  test('loadfile, dofile and short_src keep the name the code was given', () =>
    same(`
local f = assert(io.open('named-chunk.lua', 'w'))
f:write("return debug.getinfo(1, 'S').short_src, select(2, pcall(error, 'here'))\\n")
f:close()
print(loadfile('named-chunk.lua')())
print(dofile('./named-chunk.lua'))
print(select(2, loadfile('named-chunk.lua', 't', {})))
local g = assert(io.open('broken-chunk.lua', 'w')); g:write('x = = 1\\n'); g:close()
print(loadfile('broken-chunk.lua'))
print(pcall(dofile, 'broken-chunk.lua'))
`));
});

describe('buffered writes as C stdio', () => {
  test('past the buffer, data reaches the file; a popen flushes every open file first', () =>
    same(`
local f = assert(io.open('buffered.txt', 'w'))
for _ = 1, 100 do f:write(('x'):rep(99), '\\n') end
local seen = io.open('buffered.txt'):read('a')
print(#seen > 0, #seen <= 10000)
local g = assert(io.open('popen-flushed.txt', 'w'))
g:write('small')
local p = io.popen('wc -c < popen-flushed.txt; wc -c < buffered.txt')
print(tonumber(p:read('l')), tonumber(p:read('l')))
p:close()
f:close(); g:close()
`));

  test("'a+' reads from the beginning and writes at the end", () =>
    same(`
local f = assert(io.open('append.txt', 'w')); f:write('ab\\ncd\\n'); f:close()
local a = assert(io.open('append.txt', 'a+'))
print(a:seek(), a:read(2))
a:write('ef')
print(a:seek('cur'), a:seek('end'))
a:seek('set', 0)
print(a:read('a'))
a:close()
local w = assert(io.open('append.txt', 'a')); print(w:seek()); w:close()
`));
});

describe('os.date and messages', () => {
  test('a time os.date cannot represent raises as natively', () =>
    same(`
print(pcall(os.date, '%Y', 2^60))
print(pcall(os.date, '!%Y', -2^60))
print(pcall(os.date, '*t', 2^60))
print(os.date('!%Y-%m-%d', 0), os.date('!%Y', 2^40))
print(pcall(os.date, '%Y', 1.5)); print(pcall(os.date, {})); print(pcall(os.date, '%Y', 'x'))
`));

  test('argument errors name the functions as natively, with "no value" where natively so', () =>
    same(`
print(pcall(os.getenv)); print(pcall(os.remove)); print(pcall(os.rename)); print(pcall(os.rename, 'a'))
print(pcall(io.popen)); print(pcall(io.popen, 'true', 'rw')); print(pcall(io.popen, {}))
print(pcall(function() os.getenv() end)); print(pcall(function() os.remove({}) end)); print(pcall(function() io.popen() end))
print(pcall(os.execute, {}))
print(pcall(os.exit, 'x')); print(pcall(os.exit, 1.5)); print(pcall(os.exit, {}))
print(os.getenv(42), os.remove(42))
print(pcall(os.setlocale, {})); print(pcall(function() local l = os.setlocale('C', 'x'); return l end))
print(pcall(function() local d = os.date('%Ez'); return d end))
print(pcall(loadfile, {})); print(pcall(dofile, {})); print(pcall(loadfile, 'x.lua', {}))
print(pcall(function() local f = loadfile({}); return f end))
print(pcall(package.searchpath, 'x', {}))
local buffered = io.tmpfile()
print(pcall(function() buffered:setvbuf('full', {}) end)); print(pcall(function() buffered:setvbuf('line', 1.5) end))
print(buffered:setvbuf('full', '16'), pcall(io.stdout.setvbuf, io.stdout, 'no', true))
print(pcall(function() buffered:seek('set', {}) end)); print(pcall(function() buffered:seek('set', 0.5) end))
print(buffered:seek('set', '2'), buffered:seek('cur', 1.0))
buffered:close()
local f = assert(io.open('closed-lines.txt', 'w')); f:write('a\\nb\\n'); f:close()
local g = assert(io.open('closed-lines.txt'))
print(pcall(function() for _ in g:lines() do g:close() end end))
local h = assert(io.open('closed-lines.txt'))
local lines = h:lines(); h:close()
print(pcall(lines))
print(pcall(function() local line = lines(); return line end))
local ended = io.lines('closed-lines.txt'); for _ in ended do end
print(pcall(function() local line = ended(); return line end))
`));
});

describe('require', () => {
  test("require('init') from a library's folder finds its init.lua, not the config", async () => {
    const library = join(differential.dir, 'library');
    mkdirSync(library, { recursive: true });
    writeFileSync(join(library, 'init.lua'), "return 'the library init'\n");
    await same(`
-- The library's folder takes the place of './?.lua'; moonpool's config directory stays first.
package.path = package.path:gsub('%./%?%.lua', './library/?.lua')
print(require('init'))
print(package.searchpath('init', package.path) ~= nil)
`);
  });
});

describe('FIFOs', () => {
  test('a read waits for the writer, as natively', () =>
    same(`
os.remove('waited.fifo')
assert(os.execute('mkfifo waited.fifo'))
assert(os.execute("(sleep 0.5; printf 'late data\\n' > waited.fifo) >/dev/null 2>&1 &"))
local f = assert(io.open('waited.fifo'))
print(f:read('a'))
f:close()
os.remove('waited.fifo')
`));
});
