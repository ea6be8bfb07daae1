// `moonpool call TOOL [JSON]`: runs one call as a host would. The model-facing text goes to
// stdout (stderr for an error), what the tool prints goes to stderr as it happens.
import { unpack } from 'msgpackr';
import type { CallResult, ToolHost } from '../../core/index.js';
import { UsageError, type CliInput } from '../cli-options.js';
import type { Output } from '../open-host.js';

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
  const shown = snapshot === undefined ? rest : { ...rest, snapshot: unpack(snapshot) as unknown };
  return JSON.stringify(shown, (_key, value: unknown) => (value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString('base64') } : value), 2);
}

export async function callTool(host: ToolHost, input: CliInput, output: Output): Promise<number> {
  const [name, json, ...extra] = input.positionals;
  if (name === undefined) throw new UsageError('call needs a tool name: moonpool call TOOL [JSON]');
  if (extra.length > 0) throw new UsageError(`call takes one JSON argument (got ${extra.length + 1}); quote the JSON`);
  const args = parseArguments(json);
  const controller = new AbortController();
  const cancel = (): void => controller.abort();
  process.once('SIGINT', cancel);
  try {
    const result = await host.call(name, args, {
      signal: controller.signal,
      onLog: (text) => output.stderr.write(`${text}\n`),
    });
    if (input.json) output.stdout.write(`${resultAsJson(result)}\n`);
    else (result.isError ? output.stderr : output.stdout).write(result.content.endsWith('\n') ? result.content : `${result.content}\n`);
    return result.isError ? 1 : 0;
  } finally {
    process.off('SIGINT', cancel);
  }
}
