// `moonpool call TOOL [JSON]`: runs one call as a host would. The model-facing text goes to
// stdout (stderr for an error), what the tool prints goes to stderr as it happens; on a terminal
// the tool's live block is drawn on stderr while it runs, and the text is made safe to show.
// Ctrl-C (or SIGTERM, SIGHUP) cancels the call; the command then exits 128 + the signal's number.
// A tool's question (`ctx:ask`) is asked on the terminal when stdin and stderr are one; with
// --yes, or without a terminal, it takes its default, or gets none when it has none. A config
// with errors is mentioned after the result, as `list` does.
import { constants } from 'node:os';
import { decodeSnapshot, type AskAnswer, type AskQuestion, type CallResult, type ToolHost } from '../../core/index.js';
import { UsageError, type CliInput } from '../cli-options.js';
import { commandAsRun } from '../invocation.js';
import { writeProblemsNotice } from './list.js';
import type { Output } from '../open-host.js';
import { sanitizeLines } from '../terminal-text.js';
import { unattendedAnswer } from '../question-prompt.js';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export function parseArguments(text: string | undefined): unknown {
  if (text === undefined) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`the arguments are not valid JSON: ${(error as Error).message}`);
  }
}

function resultAsJson(result: CallResult): string {
  const { snapshot, ...rest } = result;
  const shown = snapshot === undefined ? rest : { ...rest, snapshot: decodeSnapshot(snapshot) };
  return JSON.stringify(
    shown,
    (_key, value: unknown) => (value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value),
    2,
  );
}

export async function callTool(host: ToolHost, input: CliInput, output: Output): Promise<number> {
  const [name, json, ...extra] = input.positionals;
  if (name === undefined) throw new UsageError(`call needs a tool name: ${commandAsRun()} call TOOL [JSON]`);
  if (extra.length > 0) throw new UsageError(`call takes one JSON argument (got ${extra.length + 1}); quote the JSON`);
  const args = parseArguments(json);
  const controller = new AbortController();
  let stoppedBy: NodeJS.Signals | undefined;
  const cancel = (signal: NodeJS.Signals): void => {
    stoppedBy ??= signal;
    controller.abort();
  };
  // Asked to stop, the call is cancelled, so the host can end what it started before exiting.
  for (const signal of STOP_SIGNALS) process.once(signal, cancel);
  const stderr = output.stderr as NodeJS.WriteStream;
  // The live block (and the width tables it draws with) loads only for a terminal.
  const live =
    stderr.isTTY && !input.json ? new (await import('../live-block.js')).LiveBlock(stderr, host, name) : undefined;
  const asksTerminal = !input.yes && process.stdin.isTTY === true && stderr.isTTY === true;
  const ask = async (question: AskQuestion, signal: AbortSignal): Promise<AskAnswer> => {
    if (!asksTerminal) return unattendedAnswer(question);
    const { askOnTerminal } = await import('../terminal-question.js');
    live?.hold(true);
    try {
      return await askOnTerminal(question, signal, {
        input: process.stdin,
        output: stderr,
        onInterrupt: () => cancel('SIGINT'),
      });
    } finally {
      live?.hold(false);
    }
  };
  try {
    const result = await host.call(name, args, {
      signal: controller.signal,
      // Printed lines reach a person (stderr) whatever stdout is: never an escape sequence.
      onLog: (text) => (live ? live.log(text) : output.stderr.write(`${sanitizeLines(text).join('\n')}\n`)),
      onSnapshot: (snapshot) => live?.setSnapshot(snapshot),
      onTitle: (title) => live?.setTitle(title),
      onQueued: (place) => live?.setQueued(place),
      onStart: () => live?.setQueued(undefined),
      onAsk: ask,
    });
    live?.finish();
    if (input.json) {
      output.stdout.write(`${resultAsJson(result)}\n`);
    } else {
      const stream = (result.isError ? output.stderr : output.stdout) as NodeJS.WriteStream;
      const text = stream.isTTY ? sanitizeLines(result.content).join('\n') : result.content;
      stream.write(text.endsWith('\n') ? text : `${text}\n`);
    }
    writeProblemsNotice(host, output);
    // Stopped by a signal, the command exits as the shell expects of one (130 for Ctrl-C).
    if (stoppedBy !== undefined) return 128 + constants.signals[stoppedBy];
    return result.isError ? 1 : 0;
  } finally {
    live?.finish();
    for (const signal of STOP_SIGNALS) process.off(signal, cancel);
  }
}
