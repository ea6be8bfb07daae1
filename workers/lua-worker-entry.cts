// The file piscina loads in each worker: CommonJS that import()s the ESM worker. piscina
// require()s its filename before trying import(); Node's require() of an ES module aborts the
// process (a failed CHECK in CreateRequiredModuleFacade) when the worker is terminated while the
// module loads. Loading here starts at once, so a warm worker is as warm as before.
import type { TaskHandler } from '../shared/protocol.js';

const loading: Promise<TaskHandler> = import('./lua-worker.js').then((module: { default: TaskHandler }) => module.default);
// A load error reaches the first task (its reply is the error), not the unhandled-rejection hook.
loading.catch(() => undefined);

const handleTask: TaskHandler = async (task) => (await loading)(task);
module.exports = handleTask;
