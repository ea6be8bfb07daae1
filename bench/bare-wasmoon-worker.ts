// bench baseline: a bare worker_thread running wasmoon that answers each postMessage by calling a
// Lua function — the least a worker-isolated Lua call can cost.
import { parentPort, workerData } from 'node:worker_threads';
import { LuaFactory } from 'wasmoon';

const engine = await new LuaFactory().createEngine();
await engine.doString(workerData as string);
const handler = engine.global.get('handle') as (argument: unknown) => unknown;
parentPort!.on('message', (argument: unknown) => {
  parentPort!.postMessage(handler(argument));
});
parentPort!.postMessage('ready');
