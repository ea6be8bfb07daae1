// `moonpool call` asking a tool's question on its terminal: the question on stderr, the reply
// read from stdin a line at a time until it answers (see question-prompt.ts). End of input
// (Ctrl-D) declines; Ctrl-C is the caller's (it cancels the call); the call ending first takes
// the prompt away.
import { createInterface } from 'node:readline';
import type { AskAnswer, AskQuestion } from '../core/index.js';
import { answerOf, questionLines, replyHint } from './question-prompt.js';

export interface QuestionTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Ctrl-C at the prompt. */
  onInterrupt(): void;
}

export function askOnTerminal(
  question: AskQuestion,
  signal: AbortSignal,
  terminal: QuestionTerminal,
): Promise<AskAnswer> {
  const { input, output } = terminal;
  output.write(`${questionLines(question).join('\n')}\n`);
  const lines = createInterface({ input, output, terminal: true });
  return new Promise<AskAnswer>((resolve) => {
    let answered = false;
    const settle = (answer: AskAnswer): void => {
      answered = true;
      signal.removeEventListener('abort', dismiss);
      lines.close();
      resolve(answer);
    };
    const dismiss = (): void => settle({ refused: 'unavailable' });
    const prompt = (): void => lines.setPrompt(`${replyHint(question)} `);
    lines.on('line', (reply) => {
      const answer = answerOf(question, reply);
      if (answer !== undefined) return settle(answer);
      output.write(`  not an answer: ${replyHint(question)}\n`);
      lines.prompt();
    });
    lines.on('close', () => {
      if (!answered) settle({ refused: 'declined' });
    });
    lines.on('SIGINT', () => terminal.onInterrupt());
    signal.addEventListener('abort', dismiss, { once: true });
    prompt();
    lines.prompt();
  });
}
