// bench baseline: a piscina task module holding one wasmoon engine per worker thread, the least a
// pool of Lua workers can hold — the memory-per-module baseline.
import { LuaFactory } from 'wasmoon';

const engine = await new LuaFactory().createEngine();
await engine.doString("function handle() return 'ok' end");
const handle = engine.global.get('handle') as () => string;

export default function run(): string {
  return handle();
}
