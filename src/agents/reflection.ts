// Outer reflection (a hand-written Reflexion loop) around any loop, through its hooks:
//   off        — answers are accepted as they come (their correctness is still recorded);
//   final      — each answer gets one critique call; REVISE reopens the loop with the critique as
//                feedback, at most `max_reflections` times (and always within the run's brakes);
//   every-step — as final, plus a critique call after every action, fed back to the agent.
// Critique calls are metered with role `reflect`. The critic sees what the agent would see next
// (the context strategy's view), under its own system prompt.
import type { Stop } from '../contracts/stop-reason.ts';
import type { ChatMessage, ToolSpec } from '../contracts/chat.ts';
import { checkAnswer } from '../scenario/check.ts';
import type { AgentLoop, AgentRun } from './agent.ts';
import { PLAIN_HOOKS, type AnswerReview, type LoopHooks } from './hooks.ts';
import type { ReflectionRecord } from '../contracts/records.ts';

export const CRITIC_SYSTEM: ChatMessage = {
  role: 'system',
  name: 'reflect',
  content:
    "You review an AI agent's work for correctness. Be concrete. Start your reply with APPROVE when the answer is correct and complete, or with REVISE followed by what must change.",
};
const REVIEW_ANSWER: ChatMessage = {
  role: 'user',
  content: 'Review the final answer above against the goal: APPROVE, or REVISE and say what must change.',
};
const REVIEW_STEP: ChatMessage = {
  role: 'user',
  content:
    'Review the last step above in one or two sentences: is it sound, and what should the next step keep in mind?',
};

/** The critic's verdict from the first word of its reply; null when it gave none. */
export function parseVerdict(text: string | null): 'approve' | 'revise' | null {
  const m = /^[\s*_#>"'`]*(APPROVE|REVISE)/i.exec(text ?? '');
  return m ? (m[1]!.toUpperCase() === 'APPROVE' ? 'approve' : 'revise') : null;
}

class Reflection implements LoopHooks {
  readonly record: ReflectionRecord;

  constructor(
    private readonly run: AgentRun,
    private readonly base: LoopHooks,
  ) {
    this.record = {
      mode: run.caller.settings.reflection,
      critiques: 0,
      step_critiques: 0,
      reopens: 0,
      unparsed: 0,
      max_reached: false,
      answers: [],
    };
  }

  view(messages: ChatMessage[], tools?: ToolSpec[]) {
    return this.base.view(messages, tools);
  }

  /** One critique call over the agent's current view; its reply as feedback the agent can read. */
  private async critique(
    messages: ChatMessage[],
    ask: ChatMessage,
    tools?: ToolSpec[],
  ): Promise<{ ok: true; feedback: ChatMessage } | { ok: false; stop: Stop }> {
    const view = await this.base.view(messages, tools);
    if (!view.ok) return view;
    const seen = view.messages[0]?.role === 'system' ? view.messages.slice(1) : view.messages;
    const out = await this.run.caller.call('reflect', [CRITIC_SYSTEM, ...seen, ask], tools);
    if (!out.ok) return out;
    return { ok: true, feedback: { role: 'user', name: 'critic', content: out.result.message.content ?? '' } };
  }

  async afterAction(messages: ChatMessage[], tools?: ToolSpec[]): Promise<Stop | null> {
    const before = await this.base.afterAction(messages, tools);
    if (before || this.record.mode !== 'every-step') return before;
    const c = await this.critique(messages, REVIEW_STEP, tools);
    if (!c.ok) return c.stop;
    this.record.step_critiques++;
    messages.push(c.feedback);
    return null;
  }

  async onAnswer(messages: ChatMessage[], answer: string, tools?: ToolSpec[]): Promise<AnswerReview> {
    this.record.answers.push(checkAnswer(this.run.scenario.check, answer));
    const r = this.record;
    if (r.mode === 'off') return this.base.onAnswer(messages, answer, tools);
    if (r.reopens >= this.run.caller.settings.max_reflections) {
      r.max_reached = true;
      return { kind: 'accept' };
    }
    const c = await this.critique(messages, REVIEW_ANSWER, tools);
    if (!c.ok) return { kind: 'stop', stop: c.stop };
    r.critiques++;
    const verdict = parseVerdict(c.feedback.content as string);
    if (verdict === null) r.unparsed++;
    if (verdict !== 'revise') return { kind: 'accept' };
    r.reopens++;
    return { kind: 'reopen', feedback: c.feedback };
  }
}

/** Runs `loop` under the run's reflection setting; the per-run record goes to extra.reflection. */
export function withReflection<R extends AgentRun>(loop: AgentLoop<R>): AgentLoop<R> {
  return async (run) => {
    const reflection = new Reflection(run, run.hooks ?? PLAIN_HOOKS);
    const outcome = await loop({ ...run, hooks: reflection });
    return { ...outcome, extra: { ...outcome.extra, reflection: reflection.record } };
  };
}
