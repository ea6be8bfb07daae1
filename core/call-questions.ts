// A call's questions to the user (`ctx:ask`), from the host's side. Each goes to the caller's
// `onAsk`; its answer is checked against the question (one of the choices offered, or a yes or
// no), and a caller without a handler, a handler that throws or answers something else, or a
// call that ends first, all come back as no one to ask. Each exchange is kept from the moment it
// is asked, for the call's result and its session record, the first MAX_KEPT_QUESTIONS of them:
// one still waiting when the call ends is kept with neither an answer nor a refusal.
import type { AskAnswer, AskQuestion, AskRefusal } from '../shared/protocol.js';

/** How one handler answers: the answer (or why there is none), now or later. */
export type AskHandler = (question: AskQuestion, signal: AbortSignal) => AskAnswer | Promise<AskAnswer>;

/** One question a call asked, and how it was answered: neither `answer` nor `refused` when the call ended first. */
export interface AskExchange {
  question: AskQuestion;
  /** The choice picked, or yes (true) or no (false) to a confirm. */
  answer?: string | boolean;
  /** Why there is no answer; absent too when the call ended (timeout, cancel, crash) while the question waited. */
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

/** An exchange as kept while the call runs: `since` its question was asked, `done` once it settled. */
interface Kept {
  exchange: AskExchange;
  since: number;
  done: boolean;
}

export class CallQuestions {
  private readonly kept: Kept[] = [];

  constructor(private readonly handler: AskHandler | undefined) {}

  /** The exchanges so far, as copies: a question still waiting has neither answer nor refusal, and waited until now. */
  exchanges(): AskExchange[] {
    const now = performance.now();
    return this.kept.map(({ exchange, since, done }) =>
      done ? { ...exchange } : { ...exchange, waitedMs: Math.round(now - since) },
    );
  }

  /**
   * Asks the user through the handler; never throws, and settles when `signal` aborts (the call ended: the
   * question stays unanswered). The handler gets its own copy: one that edits it changes neither the question
   * its answer is checked against nor the one recorded.
   */
  async ask(question: AskQuestion, signal: AbortSignal): Promise<AskAnswer> {
    const kept: Kept = { exchange: { question, waitedMs: 0 }, since: performance.now(), done: false };
    if (this.kept.length < MAX_KEPT_QUESTIONS) this.kept.push(kept);
    let answer: AskAnswer = NO_ONE;
    let stopWaiting = (): void => undefined;
    const ended = new Promise<AskAnswer>((resolve) => {
      stopWaiting = () => resolve(NO_ONE);
      signal.addEventListener('abort', stopWaiting, { once: true });
    });
    try {
      if (this.handler !== undefined && !signal.aborted)
        answer = checked(question, await Promise.race([this.handler(structuredClone(question), signal), ended]));
    } catch {
      // A handler that throws: no one to ask.
    } finally {
      signal.removeEventListener('abort', stopWaiting);
    }
    // The tool hears the answer only if its call is still running.
    if (!signal.aborted) Object.assign(kept.exchange, answer);
    kept.exchange.waitedMs = Math.round(performance.now() - kept.since);
    kept.done = true;
    return answer;
  }
}
