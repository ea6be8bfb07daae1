// The file piscina loads in each worker: CommonJS that import()s the ESM worker. piscina
// require()s its filename before trying import(); Node's require() of an ES module aborts the
// process (a failed CHECK in CreateRequiredModuleFacade) when the worker is terminated while the
// module loads. Loading here starts at once, so a warm worker is as warm as before.
import type { WorkerReply, WorkerTask } from '../core/protocol.js';

type Handler = (task: WorkerTask) => Promise<WorkerReply>;

const loading: Promise<Handler> = import('./lua-worker.js').then((module: { default: Handler }) => module.default);
// A load error reaches the first task (its reply is the error), not the unhandled-rejection hook.
loading.catch(() => undefined);

module.exports = async function handleTask(task: WorkerTask): Promise<WorkerReply> {
  return (await loading)(task);
};
