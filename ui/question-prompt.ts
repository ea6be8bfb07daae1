// A tool's question (`ctx:ask`) as the terminal front ends show it and read its answer: the
// question and its numbered choices, what Enter picks, and a typed reply turned into an answer (a
// choice's number or its text; y/yes/n/no for a confirm; an empty reply for the default).
// `unattendedAnswer` is the answer when no one is asked (`--yes`, no terminal); `exchangeLine`
// says what was asked and answered, for a replayed block.
import type { AskAnswer, AskExchange, AskQuestion } from '../core/index.js';
import { sanitizeLines } from './terminal-text.js';

/** The question and, for a choice, its choices numbered from 1, the default marked; safe to show. */
export function questionLines(question: AskQuestion): string[] {
  const lines = sanitizeLines(question.question).map((line, index) => (index === 0 ? `? ${line}` : `  ${line}`));
  if (question.kind === 'choice')
    question.choices.forEach((choice, index) => {
      const marked = choice === question.default ? ' (default)' : '';
      lines.push(`  ${index + 1}) ${sanitizeLines(choice).join(' ')}${marked}`);
    });
  return lines;
}

/** What the reply line asks for: `[y/N]`, or the choices' numbers and the default. */
export function replyHint(question: AskQuestion): string {
  if (question.kind === 'confirm') {
    if (question.default === undefined) return '[y/n]';
    return question.default ? '[Y/n]' : '[y/N]';
  }
  const range = question.choices.length === 1 ? '1' : `1-${question.choices.length}`;
  const preset = question.default === undefined ? '' : `, Enter: ${sanitizeLines(question.default).join(' ')}`;
  return `[${range} or a choice${preset}]`;
}

/** The answer a typed reply gives, or undefined when it answers nothing (asked again). */
export function answerOf(question: AskQuestion, reply: string): AskAnswer | undefined {
  const typed = reply.trim();
  if (typed === '') return question.default === undefined ? undefined : { answer: question.default };
  if (question.kind === 'confirm') {
    const word = typed.toLowerCase();
    if (word === 'y' || word === 'yes') return { answer: true };
    if (word === 'n' || word === 'no') return { answer: false };
    return undefined;
  }
  // A choice's text as typed, or as shown (its escapes and controls removed), then its number.
  const picked =
    question.choices.find((choice) => choice === typed) ??
    question.choices.find((choice) => sanitizeLines(choice).join(' ') === typed) ??
    (/^\d+$/.test(typed) ? question.choices[Number(typed) - 1] : undefined);
  return picked === undefined ? undefined : { answer: picked };
}

/** The answer when no one is asked: the question's default, else none (`unavailable`). */
export function unattendedAnswer(question: AskQuestion): AskAnswer {
  return question.default === undefined ? { refused: 'unavailable' } : { answer: question.default };
}

/** `? Which colour? → blue` (or `→ no answer: declined`), safe to show. */
export function exchangeLine(exchange: AskExchange): string {
  const asked = sanitizeLines(exchange.question.question).join(' ');
  const { answer } = exchange;
  const said =
    answer === undefined
      ? `no answer: ${exchange.refused ?? 'the call ended first'}`
      : typeof answer === 'boolean'
        ? answer
          ? 'yes'
          : 'no'
        : sanitizeLines(answer).join(' ');
  return `? ${asked} → ${said}`;
}
