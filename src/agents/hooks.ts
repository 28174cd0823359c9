// Hooks a loop calls at its three decision points, so context strategies and reflection wrap any
// loop (ReAct, task queue) without the loop knowing which are on. A loop without hooks behaves as
// with PLAIN_HOOKS: it sends the whole conversation and accepts its first answer.
import type { Stop } from '../contracts/stop-reason.ts';
import type { ChatMessage, ToolSpec } from '../contracts/chat.ts';

export type ViewOutcome = { ok: true; messages: ChatMessage[] } | { ok: false; stop: Stop };

export type AnswerReview =
  | { kind: 'accept' }
  /** Append `feedback` to the conversation and go on (the answer is reopened). */
  | { kind: 'reopen'; feedback: ChatMessage }
  | { kind: 'stop'; stop: Stop };

export interface LoopHooks {
  /** What to send for this conversation (the context strategy). May make metered calls (summaries). */
  view(messages: ChatMessage[], tools?: ToolSpec[]): Promise<ViewOutcome>;
  /** After an action's observations are appended: may append feedback; a Stop ends the run. */
  afterAction(messages: ChatMessage[], tools?: ToolSpec[]): Promise<Stop | null>;
  /** The loop has an answer (already appended to `messages`): accept it, reopen it, or stop. */
  onAnswer(messages: ChatMessage[], answer: string, tools?: ToolSpec[]): Promise<AnswerReview>;
}

export const PLAIN_HOOKS: LoopHooks = {
  view: async (messages) => ({ ok: true, messages }),
  afterAction: async () => null,
  onAnswer: async () => ({ kind: 'accept' }),
};
