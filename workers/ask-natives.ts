// The natives behind `ctx:ask` (lua/ask.lua, which checked the question's shape): the question
// goes to the host over the call's event channel and Lua waits for the answer (the answer, or nil
// and the reason). A task without a channel (`available`) has no one to ask.
import type { AskAnswer, AskQuestion } from '../shared/protocol.js';
import type { CallChannel } from './call-channel.js';
import type { NativeCall, NativeFunction } from './lua-natives.js';

const NO_ONE_TO_ASK = { refused: 'unavailable' } as const satisfies AskAnswer;

function questionOf(call: NativeCall): AskQuestion {
  const question = call.string(2) ?? '';
  if (call.string(1) === 'confirm') {
    return call.typeName(4) === 'boolean'
      ? { kind: 'confirm', question, default: call.boolean(4) }
      : { kind: 'confirm', question };
  }
  const choices = call.value(3, 'choices') as string[];
  const preset = call.string(4);
  return preset === null
    ? { kind: 'choice', question, choices }
    : { kind: 'choice', question, choices, default: preset };
}

export function createAskNatives(channel: () => CallChannel | null): Record<string, NativeFunction> {
  return {
    ask: async (call) => {
      const answer = (await channel()?.ask(questionOf(call))) ?? NO_ONE_TO_ASK;
      return 'answer' in answer ? [answer.answer] : [null, answer.refused];
    },
  };
}
