// bench baseline: a bare worker_thread running wasmoon, answering id-tagged requests in order by
// calling a Lua function — the throughput baseline's worker.
import { parentPort, workerData } from 'node:worker_threads';
import { LuaFactory } from 'wasmoon';

const engine = await new LuaFactory().createEngine();
await engine.doString(workerData as string);
const handler = engine.global.get('handle') as (argument: unknown) => unknown;
parentPort!.on('message', ({ id, argument }: { id: number; argument: unknown }) => {
  parentPort!.postMessage({ id, result: handler(argument) });
});
parentPort!.postMessage('ready');
