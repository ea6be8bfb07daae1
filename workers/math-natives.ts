// The hyperbolic functions a stock Lua 5.4 build keeps for compatibility with 5.3 (`math.cosh`,
// `sinh`, `tanh`; lua/compat.lua defines them when the WebAssembly build lacks them). JavaScript's
// are accurate to within an ulp, as the C library's are; the prelude checks the argument first.
import type { NativeFunction } from './lua-natives.js';

const hyperbolic =
  (fn: (x: number) => number): NativeFunction =>
  (call) => [fn(call.number(1) ?? Number.NaN)];

export function createMathNatives(): Record<string, NativeFunction> {
  return { cosh: hyperbolic(Math.cosh), sinh: hyperbolic(Math.sinh), tanh: hyperbolic(Math.tanh) };
}
