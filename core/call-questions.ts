// A call's questions to the user (`ctx:ask`), from the host's side. Each goes to the caller's
// `onAsk`; its answer is checked against the question (one of the choices offered, or a yes or
// no), and a caller without a handler, a handler that throws or answers something else, or a
// call that ends first, all come back as no one to ask. Each exchange is kept for the call's
// result and its session record, the first MAX_KEPT_QUESTIONS of them.
import type { AskAnswer, AskQuestion, AskRefusal } from '../shared/protocol.js';

/** How one handler answers: the answer (or why there is none), now or later. */
export type AskHandler = (question: AskQuestion, signal: AbortSignal) => AskAnswer | Promise<AskAnswer>;

/** One question a call asked, and how it was answered. */
export interface AskExchange {
  question: AskQuestion;
  /** The choice picked, or yes (true) or no (false) to a confirm. */
  answer?: string | boolean;
  /** Why there is no answer. */
  refused?: AskRefusal;
  /** How long the call waited for it (its time limit was paused meanwhile). */
  waitedMs: number;
}

/** Questions a call keeps with their answers; later ones are asked and answered all the same. */
export const MAX_KEPT_QUESTIONS = 50;

const NO_ONE: AskAnswer = { refused: 'unavailable' };

/**
 * The answer `reply` gives to `question`, as a new object: one of its choices, a boolean to a
 * confirm, or a known refusal; anything else (both an answer and a refusal, a value of another
 * kind) is no one to ask. Each field is read once, so a getter cannot answer one thing here and
 * another to the tool.
 */
function checked(question: AskQuestion, reply: unknown): AskAnswer {
  if (typeof reply !== 'object' || reply === null) return NO_ONE;
  const { answer, refused } = reply as { answer?: unknown; refused?: unknown };
  if (answer !== undefined) {
    if (refused !== undefined) return NO_ONE;
    const fits =
      question.kind === 'confirm'
        ? typeof answer === 'boolean'
        : typeof answer === 'string' && question.choices.includes(answer);
    return fits ? { answer: answer as string | boolean } : NO_ONE;
  }
  return refused === 'declined' || refused === 'unavailable' ? { refused } : NO_ONE;
}

export class CallQuestions {
  readonly exchanges: AskExchange[] = [];

  constructor(private readonly handler: AskHandler | undefined) {}

  /** Asks the user through the handler; never throws, and settles when `signal` aborts. */
  async ask(question: AskQuestion, signal: AbortSignal): Promise<AskAnswer> {
    const started = performance.now();
    let answer: AskAnswer = NO_ONE;
    let stopWaiting = (): void => undefined;
    const ended = new Promise<AskAnswer>((resolve) => {
      stopWaiting = () => resolve(NO_ONE);
      signal.addEventListener('abort', stopWaiting, { once: true });
    });
    try {
      if (this.handler !== undefined && !signal.aborted)
        answer = checked(question, await Promise.race([this.handler(question, signal), ended]));
    } catch {
      // A handler that throws: no one to ask.
    } finally {
      signal.removeEventListener('abort', stopWaiting);
    }
    if (this.exchanges.length < MAX_KEPT_QUESTIONS)
      this.exchanges.push({ question, ...answer, waitedMs: Math.round(performance.now() - started) });
    return answer;
  }
}
