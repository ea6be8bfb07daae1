// A tool's question (`ctx:ask`) put to the MCP client as `elicitation/create`, when the client
// declared the `elicitation` capability for forms at `initialize`; else no one can be asked. The
// form has one field, `answer`: an enum of the choices, or a boolean for a confirm, with the
// question's default. The client's `accept` answers, `decline` and `cancel` decline; an error
// answer, the connection closing, or the call ending first leave the question unanswered (the
// last cancels the request with `notifications/cancelled`). The requests are the server's own,
// with ids of their own; the client's responses to them are taken here before either path.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AskAnswer, AskQuestion } from '../../core/index.js';

type Send = (message: JSONRPCMessage) => Promise<void>;

const UNAVAILABLE: AskAnswer = { refused: 'unavailable' };
const DECLINED: AskAnswer = { refused: 'declined' };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an `initialize` request's client capabilities include form elicitation (an empty `elicitation` means forms). */
function asksForms(message: Record<string, unknown>): boolean {
  const params = message['params'];
  const capabilities = isObject(params) ? params['capabilities'] : undefined;
  const elicitation = isObject(capabilities) ? capabilities['elicitation'] : undefined;
  if (!isObject(elicitation)) return false;
  return elicitation['form'] !== undefined || elicitation['url'] === undefined;
}

/** The form's one field. */
function answerField(question: AskQuestion): Record<string, unknown> {
  const preset = question.default === undefined ? {} : { default: question.default };
  return question.kind === 'confirm'
    ? { type: 'boolean', title: 'Yes?', ...preset }
    : { type: 'string', title: 'Answer', enum: question.choices, ...preset };
}

/** What the client's result answers. */
function answerOfResult(result: unknown): AskAnswer {
  if (!isObject(result)) return UNAVAILABLE;
  const action = result['action'];
  if (action === 'decline' || action === 'cancel') return DECLINED;
  const content = result['content'];
  if (action !== 'accept' || !isObject(content)) return UNAVAILABLE;
  const answer = content['answer'];
  // The host checks the answer against the question.
  return typeof answer === 'string' || typeof answer === 'boolean' ? { answer } : UNAVAILABLE;
}

export class Elicitation {
  private formsSupported = false;
  private nextId = 1;
  private readonly waiting = new Map<string, (answer: AskAnswer) => void>();

  constructor(private readonly send: Send) {}

  /**
   * Looks at each message from the client: an `initialize` says whether it can be asked; a
   * response to one of these requests settles it. True when the message was such a response.
   */
  take(message: unknown): boolean {
    if (!isObject(message)) return false;
    if (message['method'] === 'initialize') this.formsSupported = asksForms(message);
    const id = message['id'];
    if (message['method'] !== undefined || typeof id !== 'string') return false;
    const settle = this.waiting.get(id);
    if (settle === undefined) return false;
    settle('result' in message ? answerOfResult(message['result']) : UNAVAILABLE);
    return true;
  }

  ask(question: AskQuestion, signal: AbortSignal): Promise<AskAnswer> {
    if (!this.formsSupported || signal.aborted) return Promise.resolve(UNAVAILABLE);
    const id = `moonpool-ask-${this.nextId++}`;
    return new Promise<AskAnswer>((resolve) => {
      const settle = (answer: AskAnswer): void => {
        this.waiting.delete(id);
        signal.removeEventListener('abort', withdraw);
        resolve(answer);
      };
      const withdraw = (): void => {
        settle(UNAVAILABLE);
        const cancelled = { requestId: id, reason: 'the tool call ended' };
        this.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: cancelled }).catch(() => undefined);
      };
      this.waiting.set(id, settle);
      signal.addEventListener('abort', withdraw, { once: true });
      const params = {
        message: question.question,
        requestedSchema: { type: 'object', properties: { answer: answerField(question) }, required: ['answer'] },
      };
      this.send({ jsonrpc: '2.0', id, method: 'elicitation/create', params }).catch(() => settle(UNAVAILABLE));
    });
  }

  /** The connection closed: every question waiting goes unanswered. */
  close(): void {
    for (const settle of [...this.waiting.values()]) settle(UNAVAILABLE);
  }
}
