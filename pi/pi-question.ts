// A tool's question (`ctx:ask`) in pi, through its dialogs: a choice is pi's selector, the
// default first so that Enter takes it, and dismissing it declines; a confirm is pi's confirm
// dialog, where dismissing is no. Without pi's UI (print mode) no one is asked: the question
// takes its default, or gets none, as in `moonpool call` without a terminal.
import type { AskAnswer, AskQuestion } from '../core/index.js';
import { unattendedAnswer } from '../ui/question-prompt.js';
import type { PiContext } from './pi-api.js';

export async function askInPi(
  context: PiContext | undefined,
  tool: string,
  question: AskQuestion,
  signal: AbortSignal,
): Promise<AskAnswer> {
  if (!context?.hasUI) return unattendedAnswer(question);
  if (question.kind === 'confirm')
    return { answer: await context.ui.confirm(`${tool} asks`, question.question, { signal }) };
  const preset = question.default;
  const options = preset === undefined ? question.choices : [preset, ...question.choices.filter((c) => c !== preset)];
  const picked = await context.ui.select(`${tool}: ${question.question}`, options, { signal });
  return picked === undefined ? { refused: 'declined' } : { answer: picked };
}
