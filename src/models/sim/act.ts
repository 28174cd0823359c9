// How the sim plays the ReAct role: a numbered thought and one tool call per step, then the answer.
import type { ChatMessage, ChatRequest } from '../chat.ts';
import { decide, draw, fillArgs } from './behaviour.ts';
import type { Profile } from './profile.ts';
import { hash32, rng } from './rng.ts';
import type { SimAnswer } from './sim-model.ts';
import { words } from './text.ts';

const STEP_MARK = /^(?:Thought|Answer) (\d+):/;

/** The sim numbers its own messages, so it knows its step from the conversation alone (any context window keeps the last one). */
export function stepOf(messages: ChatMessage[]): number {
  let assistants = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const mark = STEP_MARK.exec(m.content ?? '');
    if (mark) return Number(mark[1]) + 1;
    assistants++;
  }
  return assistants + 1;
}

function lastObservation(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'tool') {
      const lines = m.content.trim().split('\n');
      return lines[lines.length - 1] ?? '';
    }
  }
  return '';
}

/** The ReAct role: a thought and a tool call per step, then the final answer. */
export function writeAct(p: Profile, request: ChatRequest): SimAnswer {
  const seed = request.seed ?? 0;
  const step = stepOf(request.messages);
  const r = rng(seed, step, 'act');
  const latencyMs = Math.round(draw(r, p.latency_ms));
  const decision = decide(p, step, seed);
  if (decision.kind === 'answer') {
    const answer = p.answer.replaceAll('{observation}', lastObservation(request.messages));
    return { message: { role: 'assistant', content: `Answer ${step}: ${answer}` }, latencyMs };
  }
  const t = decision.template;
  const thought = `Thought ${step}: ${t.thought ? `${t.thought} ` : ''}${words(r, Math.round(draw(r, p.thought_tokens)))}`;
  let args = JSON.stringify(fillArgs(t.args, decision.n, step));
  if (r() < p.malformed_args_rate) args = args.slice(0, -1);
  const id = `call_${hash32(`${seed}:${step}`).toString(36)}`;
  return {
    message: { role: 'assistant', content: thought, tool_calls: [{ id, type: 'function', function: { name: t.tool, arguments: args } }] },
    latencyMs,
  };
}
