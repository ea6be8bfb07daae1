// `print`, `warn` and the standard streams as natives, which Lua sees as C functions, as in native
// Lua. Values convert with luaL_tolstring (never the global `tostring`); output reaches the log a
// line at a time. The task's output is also kept whole (up to a log's size) for `printed`: a tool
// ended by `os.exit` answers with it. Warnings follow lauxlib's, for `warn` and Lua's own.
import { LOG_LIMIT_CHARS } from './call-channel.js';
import type { LuaRawApi, LuaStack } from './lua-stack.js';
import { NativeError, Pushed, type NativeCall, type NativeFunction } from './lua-natives.js';

export type OutputNatives = ReturnType<typeof createOutputNatives>;

/**
 * Splits text written in pieces into lines for `log` (without their newlines); a partial line waits
 * for its end or `flush`, and a line that never ends goes out once it is as long as a whole log may be.
 */
export function lineSplitter(log: (line: string) => void): { write: (text: string) => void; flush: () => void } {
  let partial = '';
  return {
    write: (text) => {
      if (!text.includes('\n')) {
        // Without a newline nothing is split: many small writes stay linear.
        partial += text;
      } else {
        const lines = (partial + text).split('\n');
        partial = lines.pop()!;
        for (const line of lines) log(line);
      }
      if (partial.length >= LOG_LIMIT_CHARS) {
        log(partial);
        partial = '';
      }
    },
    flush: () => {
      const line = partial;
      partial = '';
      if (line !== '') log(line);
    },
  };
}

/** Output natives writing whole lines to `log`. */
export function createOutputNatives(raw: LuaRawApi, stack: LuaStack, log: (text: string) => void) {
  const lines = lineSplitter(log);
  let printed = '';
  // lauxlib's states: off until `@on`, then on, or continued while a warning's pieces arrive.
  let warnings: 'off' | 'on' | 'continued' = 'off';
  const write = (text: string): void => {
    if (printed.length < LOG_LIMIT_CHARS) printed += text.slice(0, LOG_LIMIT_CHARS - printed.length);
    lines.write(text);
  };
  // lua_warning's effect: a piece of a warning, `toContinue` when more pieces follow. A control
  // message (`@on`, `@off`, other `@…` ignored) is a one-piece warning, not continuing one.
  const warning = (message: string, toContinue: boolean): void => {
    if (warnings !== 'continued' && !toContinue && message.startsWith('@')) {
      if (message === '@on') warnings = 'on';
      if (message === '@off') warnings = 'off';
      return;
    }
    if (warnings === 'off') return;
    write(`${warnings === 'on' ? 'Lua warning: ' : ''}${message}${toContinue ? '' : '\n'}`);
    warnings = toContinue ? 'continued' : 'on';
  };
  const asText = (call: NativeCall, index: number): string => {
    raw._luaL_tolstring(call.L, index, 0);
    const text = stack.stringAt(call.L, -1) ?? '';
    raw._lua_settop(call.L, -2);
    return text;
  };
  const natives: Record<string, NativeFunction> = {
    print: (call) => {
      const parts: string[] = [];
      for (let index = 1; index <= call.argc; index++) parts.push(asText(call, index));
      write(`${parts.join('\t')}\n`);
      return [];
    },
    warn: (call) => {
      const parts: string[] = [];
      // At least one argument: none is `bad argument #1 … got no value`.
      for (let index = 1; index <= Math.max(1, call.argc); index++) {
        const part = call.string(index);
        if (part === null)
          throw new NativeError(`bad argument #${index} to 'warn' (string expected, got ${call.typeName(index)})`);
        parts.push(part);
      }
      parts.forEach((part, index) => warning(part, index < parts.length - 1));
      return [];
    },
    write_log: (call) => {
      write(call.string(1) ?? '');
      return [];
    },
    printed: () => [printed],
    new_handle: (call) => {
      raw._lua_newuserdatauv(call.L, 0, 0);
      return new Pushed(1);
    },
  };
  return {
    natives,
    warning,
    /** Sends a pending partial line: a task's output never waits past its end. */
    endTask: () => {
      printed = '';
      lines.flush();
    },
  };
}
