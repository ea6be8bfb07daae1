// One call from the host's side: look the tool up, check availability and arguments, run it in its
// module's pool under its time limit, stream its events, and turn every ending into a CallResult.
import { argumentProblems } from './arguments.js';
import { limitOutput } from './output-limit.js';
import { messages, type CallOptions, type CallResult, type CallStatus } from './call-result.js';
import { checkStructured } from './structured-result.js';
import { CallQuestions } from './call-questions.js';
import { CRASH_LIMIT, CRASH_WINDOW_MS, type Generation } from './generation.js';
import type { CallEvents } from '../shared/protocol.js';

/** Runs call `callId` with the generation's limits; `onSpillFailure`: told when a result's spill file could not be written (the call still returns its head). */
export async function runToolCall(
  generation: Generation,
  name: string,
  args: unknown,
  callId: string,
  options: CallOptions,
  onSpillFailure: () => void,
): Promise<CallResult> {
  const started = performance.now();
  const { loadTimeoutMs, memoryLimitBytes, spillDir, maxInlineChars, maxInlineLines } = generation.options;
  const questions = new CallQuestions(options.onAsk);
  const finish = (status: CallStatus, content: string, extra: Partial<CallResult> = {}): CallResult => ({
    callId,
    tool: name,
    status,
    isError: status !== 'ok',
    content,
    durationMs: Math.round(performance.now() - started),
    ...(questions.exchanges.length > 0 ? { questions: questions.exchanges } : {}),
    ...extra,
  });

  const tool = generation.tools.get(name);
  if (!tool) {
    const known = [...generation.tools.values()]
      .filter((entry) => entry.availability.available)
      .map((entry) => entry.definition.name);
    return finish('unknown_tool', messages.unknownTool(name, known));
  }
  if (!tool.availability.available) return finish('unavailable', messages.unavailable(name, tool.availability.reason));
  const problems = argumentProblems(tool.validate, args ?? {});
  if (problems.length > 0) return finish('invalid_args', messages.invalidArgs(name, problems));
  const { module } = tool.definition;
  if (generation.isDisabled(module))
    return finish('crashed', messages.disabled(name, CRASH_LIMIT, CRASH_WINDOW_MS / 60_000));
  const pool = generation.modulePool(module);

  let lastSnapshot: Uint8Array | undefined;
  // A question is heard even from a caller that cannot answer it, so that it is recorded.
  const events: CallEvents = {
    log: (text) => options.onLog?.(text),
    title: (text) => options.onTitle?.(text),
    snapshot: (bytes) => {
      lastSnapshot = bytes;
      options.onSnapshot?.(bytes);
    },
    ask: (question, signal) => questions.ask(question, signal),
  };
  const timeoutMs = tool.definition.timeoutMs ?? generation.options.timeoutMs;
  const { permissions } = tool.definition;
  const context = { tool: name, callId, ...(permissions ? { permissions } : {}) };
  const outcome = await pool.run(
    { kind: 'run', context, args: args ?? {} },
    {
      timeoutMs,
      coldStartMs: loadTimeoutMs,
      signal: options.signal,
      onQueued: options.onQueued,
      onStart: options.onStart,
      events,
    },
  );
  switch (outcome.kind) {
    case 'busy':
      return finish('busy', messages.busy(name, pool.stats().queued));
    case 'timeout':
      return finish('timeout', messages.timeout(name, timeoutMs));
    case 'cancelled':
      return finish('cancelled', messages.cancelled(name));
    case 'crashed':
      generation.recordCrash(module);
      return finish('crashed', messages.crashed(name, outcome.message));
    case 'done':
      break;
  }
  const reply = outcome.value;
  const { snapshot } = reply;
  if (snapshot && !(lastSnapshot && Buffer.compare(snapshot, lastSnapshot) === 0)) options.onSnapshot?.(snapshot);
  const extra: Partial<CallResult> = {};
  if (reply.title !== undefined) extra.title = reply.title;
  if (reply.snapshot !== undefined) extra.snapshot = reply.snapshot;
  if (reply.failure === 'out_of_memory') return finish('error', messages.outOfMemory(name, memoryLimitBytes), extra);
  if (reply.failure === 'not_loaded') return finish('error', messages.notLoaded(name), extra);
  const checked = reply.isError
    ? {}
    : checkStructured(reply.structured, tool.definition.outputSchema, tool.validateOutput);
  if ('problems' in checked) return finish('error', messages.badStructured(name, checked.problems), extra);
  if (checked.structured !== undefined) extra.structured = checked.structured;
  const output = limitOutput(
    reply.content,
    reply.rawContent,
    { maxChars: maxInlineChars, maxLines: maxInlineLines },
    spillDir,
    name,
    callId,
  );
  if (output.spillPath !== undefined) extra.spillPath = output.spillPath;
  if (output.spillError !== undefined) onSpillFailure();
  return finish(reply.isError ? 'error' : 'ok', output.content, extra);
}
