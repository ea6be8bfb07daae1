// Differential tests of `io`: each snippet runs natively with lua5.4 and inside moonpool, and both
// must print the same lines (test/differential.ts).
import { describe, test } from 'node:test';
import { Differential } from './differential.js';

const differential = await Differential.start();

const same = (source: string): Promise<void> => differential.same(source);

describe("read('n') on files and pipes (one scanner)", () => {
  test('a numeral past 200 bytes fails having consumed 200 of them, and the next read goes on from there', () =>
    same(`
local f = io.tmpfile(); f:write(('1'):rep(201) .. '.5 0x1p4 -.5e2 abc'); f:seek('set')
print(f:read('n')); print(f:read('n')); print(f:read('n'), f:read('n')); print(f:read('n'), f:read('a'))
local p = io.popen("printf '" .. ('2'):rep(201) .. ".5 0x1p4 -.5e2 abc'")
print(p:read('n')); print(p:read('n')); print(p:read('n'), p:read('n')); print(p:read('n'), p:read('a')); p:close()
`));
});

describe('file handles', () => {
  test('are FILE* userdata, as type, io.type, rawlen and error messages see them', () =>
    same(`
print(type(io.stdout), io.type(io.stdout), io.type(42), io.type({}), getmetatable(io.stdin).__name)
print(pcall(rawlen, io.stdin))
print((select(2, pcall(function() return ~io.stdin end)):match('on a FILE%* value')))
print((select(2, pcall(math.sin, io.stdout)):match('%(.*%)')))
local f = assert(io.open('closed.txt', 'w')); f:close()
print(io.type(f), tostring(f), tostring(io.stdout):match('^file %(') ~= nil)
`));

  test("lines' iterator names a bad format by its argument: the formats count from #2", () =>
    same(`
local f = assert(io.open('formats.txt', 'w')); f:write('a\\nb\\n'); f:close()
print(pcall(function() for _ in io.lines('formats.txt', 'l', 'x') do end end))
local g = assert(io.open('formats.txt'))
print(pcall(function() for _ in g:lines('x') do end end))
g:close()
`));

  test('a path is read up to its first NUL byte, as C sees it', () =>
    same(`
local f = assert(io.open('nul.txt\\0junk', 'w')); f:write('x'); f:close()
print(io.open('nul.txt\\0more'):read('a'))
print(io.open('missing\\0junk'))
print(loadfile('missing\\0junk'))
print(os.rename('nul.txt\\0a', 'moved.txt\\0b'), os.remove('moved.txt\\0c'), io.open('moved.txt'))
`));

  test('io.flush exists and flush returns true', () =>
    same(`
print(io.flush(), io.stdout:flush())
local f = assert(io.open('flushed.txt', 'w')); print(f:flush()); f:close()
`));

  test('closing without a handle, a standard file or a closed file fails as natively', () =>
    same(`
print((select(2, pcall(io.stdin.close)):match('%(.*%)')))
print(io.stdout:close())
print(io.close(io.stdin))
local f = assert(io.open('twice.txt', 'w')); f:close()
print(pcall(io.close, f))
print(pcall(f.write, f, 'x'))
`));
});

describe('reading', () => {
  test('io.lines and file:lines return every format of a line', () =>
    same(`
local f = assert(io.open('digits.txt', 'w')); f:write('0123456789\\n', 'abc\\n'); f:close()
for a, b in io.lines('digits.txt', 2, 3) do print(a, b) end
for a, b, c in io.lines('digits.txt', 1, 2, 'a') do print(a, b, c) end
f = assert(io.open('digits.txt'))
for a, b in f:lines('l', 'n') do print(a, b) end
f:close()
`));

  test('lines takes at most 250 formats', () =>
    same(`
local f = assert(io.open('many.txt', 'w')); f:write('x\\ny\\n'); f:close()
local formats = {}
for i = 1, 251 do formats[i] = 'l' end
print(pcall(io.lines, 'many.txt', table.unpack(formats)))
f = assert(io.open('many.txt'))
print(pcall(f.lines, f, table.unpack(formats)))
print(select('#', f:lines(table.unpack(formats, 1, 250))()))
f:close()
`));

  test('an exhausted io.lines iterator raises "file is already closed"', () =>
    same(`
local f = assert(io.open('two.txt', 'w')); f:write('1\\n2\\n'); f:close()
local next_line = io.lines('two.txt')
print(next_line(), next_line(), next_line())
print(pcall(next_line))
print(pcall(next_line))
`));

  test("read('n') accepts and consumes as liolib does", () =>
    same(`
local cases = { '0x', '.e+', '0.e;', '0x1p4 rest', ' -12.5e2x', '1e', '--1', '0xep3', '.5', '+.', string.rep('1', 201), string.rep('1', 199) }
for _, text in ipairs(cases) do
  local f = assert(io.open('number.txt', 'w')); f:write(text); f:close()
  f = assert(io.open('number.txt'))
  local value = f:read('n')
  print(('%q'):format(text:sub(1, 12)), value, ('%q'):format(f:read('a'):sub(1, 12)))
  f:close()
end
`));

  test('reading a directory fails with "Is a directory"', () =>
    same(`
local f = assert(io.open('.'))
print(f:read('a'))
print(f:read('l'))
print(f:read(1))
f:close()
`));

  test('a write-only file cannot be read, and its lines iterator raises', () =>
    same(`
local f = assert(io.open('write-only.txt', 'w'))
print(f:read())
print(pcall(f:lines()))
f:close()
local r = assert(io.open('write-only.txt', 'r'))
print(r:write('x'))
r:close()
`));

  test('the closed default input and output files have their own messages', () =>
    same(`
local f = assert(io.open('default.txt', 'w')); f:write('x'); f:close()
io.input('default.txt'); io.input():close()
print(pcall(io.read))
print(pcall(io.lines))
io.output('default-out.txt'); io.output():close()
print(pcall(io.write, 'x'))
io.input(io.stdin); io.output(io.stdout)
`));
});

describe('writing', () => {
  test('numbers are written with %d and %.14g', () =>
    same(`
local f = assert(io.open('numbers.txt', 'w'))
f:write(1.0, ' ', 3, ' ', -0.0, ' ', 1e100, ' ', 2^53, ' ', 0.1, ' ', math.maxinteger, ' ', 1/0, ' ', math.pi)
f:close()
print(io.open('numbers.txt'):read('a'))
print(pcall(io.write, {}))
`));

  test('io.write splits output into lines at newlines, not at calls', () =>
    same(`
io.write('a'); io.write('b', 'c\\n'); io.write('d\\ne'); io.write(1, 2.5, '\\n'); print('f')
io.write('tail without newline')
`));

  test('setvbuf checks its mode and buffers as asked', () =>
    same(`
local f = assert(io.open('buffered.txt', 'w'))
print(pcall(f.setvbuf, f, 'sometimes'))
print(f:setvbuf('full', 2000)); f:write('x')
print(io.open('buffered.txt'):read('a') == '')
print(f:setvbuf('line')); f:write('y')
print(io.open('buffered.txt'):read('a'))
f:write('z\\n')
print(io.open('buffered.txt'):read('a'))
print(f:setvbuf('no')); f:write('w')
print(io.open('buffered.txt'):read('a'))
f:close()
`));

  test('seek in append mode reports the position at the end', () =>
    same(`
local f = assert(io.open('append.txt', 'w')); f:write('abc'); f:close()
f = assert(io.open('append.txt', 'a'))
print(f:seek())
f:write('de')
print(f:seek(), f:seek('end'), f:seek('set', 1))
f:close()
print(io.open('append.txt'):read('a'))
`));
});

describe('opening', () => {
  test('modes are checked as l_checkmode does', () =>
    same(`
assert(io.open('modes.txt', 'w')):close()
for _, mode in ipairs { 'r', 'rb', 'rbb', 'r+', 'r+b', 'r+bbb', 'w', 'a+b', 'rb+', 'rw', 'r+bk', '', '+', 'b' } do
  local ok, result = pcall(io.open, 'modes.txt', mode)
  if ok and result then result:close() end
  print(mode, ok, ok and io.type(result) or result:match('%(.*%)'))
end
`));

  test('io.input and io.output refuse what is not a FILE*', () =>
    same(`
print((select(2, pcall(io.input, {})):match('%(.*%)')))
print((select(2, pcall(io.output, true)):match('%(.*%)')))
print(pcall(io.lines, 'no-such-file.txt'))
print(pcall(io.input, 'no-such-file.txt'))
print(io.open('no-such-file.txt'))
print(pcall(io.open, {}))
`));

  test('io.tmpfile gives a file that reads back what was written', () =>
    same(`
local f = io.tmpfile()
print(io.type(f), f:write('temporary', 1, '\\n') == f, f:seek('set'))
print(f:read('a'))
print(f:close())
`));
});
