// How the sim plays the critic of an outer reflection loop (role `reflect`), and what its verdicts
// do to the agent's next answer. Stateless like every sim role: the verdict is a pure function of
// the profile, the seed and the conversation (which answer is under review, and whether it is the
// profile's wrong answer), so it is the same in process and behind `bench serve`.
import type { AssistantMessage, ChatMessage, ChatRequest } from '../contracts/chat.ts';
import { draw } from './behaviour.ts';
import type { Profile } from './profile.ts';
import { rng, type Rng } from './rng.ts';
import type { SimAnswer } from './answer.ts';
import { stepOf } from './step.ts';
import { words } from './text.ts';

const ANSWER_MARK = /^Answer (\d+):/;

/** The text of the sim's answer at `step`; `{observation}` is filled by the caller for a correct one. */
export const answerText = (step: number, body: string) => `Answer ${step}: ${body}`;

function lastAssistant(messages: ChatMessage[]): AssistantMessage | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') return m;
  }
  return null;
}

const pick = (r: Rng, texts: readonly string[]) => texts[Math.floor(r() * texts.length)]!;

export type Verdict = { kind: 'approve' } | { kind: 'revise'; objection: 'flip' | 'catch' | 'nitpick' };

/** The critic's decision on an answer: the profile's three probabilities, drawn per answer. */
export function judge(p: Profile, wrong: boolean, r: Rng): Verdict {
  const c = p.critic;
  if (wrong) return r() < c.catch_wrong ? { kind: 'revise', objection: 'catch' } : { kind: 'approve' };
  if (r() < c.approve_correct) return { kind: 'approve' };
  return { kind: 'revise', objection: r() < c.flip_correct ? 'flip' : 'nitpick' };
}

export function writeCritic(p: Profile, request: ChatRequest): SimAnswer {
  const seed = request.seed ?? 0;
  const reviewed = lastAssistant(request.messages);
  const step = stepOf(request.messages) - 1;
  const onAnswer = reviewed !== null && !reviewed.tool_calls?.length && ANSWER_MARK.test(reviewed.content ?? '');
  const r = rng(seed, onAnswer ? 'critic' : 'critic-step', step);
  const latencyMs = Math.round(draw(r, p.latency_ms));
  let head: string;
  if (onAnswer) {
    const verdict = judge(p, reviewed.content === answerText(step, p.wrong_answer), r);
    head =
      verdict.kind === 'approve'
        ? `APPROVE: ${pick(r, p.critic.approve)}`
        : `REVISE: ${pick(r, p.critic[verdict.objection])}`;
  } else {
    head = `Step ${step} review: ${pick(r, p.critic.step)}`;
  }
  return {
    message: { role: 'assistant', content: `${head} ${words(r, Math.round(draw(r, p.critic.critique_tokens)))}` },
    latencyMs,
  };
}

/**
 * The latest REVISE critique in the conversation and the answer it sent back: the agent revises
 * after it, into a wrong answer when the objection was one of the profile's `flip` texts.
 */
export function pendingRevision(p: Profile, messages: ChatMessage[]): { answerStep: number; wrong: boolean } | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user' || !m.content.startsWith('REVISE:')) continue;
    for (let j = i - 1; j >= 0; j--) {
      const a = messages[j]!;
      const mark = a.role === 'assistant' ? ANSWER_MARK.exec(a.content ?? '') : null;
      if (mark) return { answerStep: Number(mark[1]), wrong: p.critic.flip.some((t) => m.content.includes(t)) };
    }
    return null;
  }
  return null;
}
