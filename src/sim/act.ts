// How the sim plays the ReAct role: a numbered thought and one tool call per step, then the answer.
// After a critic's REVISE it takes the profile's revision actions and answers again, right or
// wrong as the critique's objection dictates (see critic.ts).
import type { ChatMessage, ChatRequest } from '../contracts/chat.ts';
import { cyclic, decide, draw, type Decision } from './behaviour.ts';
import { answerText, pendingRevision } from './critic.ts';
import type { Profile } from './profile.ts';
import { argumentsFor, offerOf, toolFor } from './offered-tools.ts';
import { hash32, rng } from './rng.ts';
import type { SimAnswer } from './answer.ts';
import { stepOf } from './step.ts';
import { words } from './text.ts';
import { answerArguments, structuredText } from './structured.ts';

export { stepOf } from './step.ts';

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
  const revision = pendingRevision(p, request.messages);
  const offer = offerOf(request);
  let decision: Decision = revision
    ? step <= revision.answerStep + p.critic.revision_actions
      ? cyclic(p.actions, step - 1)
      : { kind: 'answer' }
    : decide(p, step, seed);
  const format = request.response_format;
  const choice = request.tool_choice;
  const forced = offer.mustCall && typeof choice === 'object' ? offer.tools[0] : undefined;
  // Asked for structured output with nothing it may call, it answers now, in the schema.
  if (format && offer.tools.length === 0) decision = { kind: 'answer' };
  // Made to call a tool when it would answer: a forced tool takes the answer as its arguments (how
  // agents ask the Anthropic API for JSON); `required` makes it take its next action instead.
  if (decision.kind === 'answer' && offer.mustCall && !forced) decision = cyclic(p.actions, step - 1);
  if (decision.kind === 'answer') {
    const wrong = revision ? revision.wrong : rng(seed, 'answer_error')() < p.answer_error_rate;
    const body = wrong ? p.wrong_answer : p.answer.replaceAll('{observation}', lastObservation(request.messages));
    const text = answerText(step, body);
    if (forced) {
      const id = `call_${hash32(`${seed}:${step}:answer`).toString(36)}`;
      return {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id,
              type: 'function',
              function: { name: forced.function.name, arguments: answerArguments(forced, text) },
            },
          ],
        },
        latencyMs,
      };
    }
    return { message: { role: 'assistant', content: format ? structuredText(format, text) : text }, latencyMs };
  }
  const t = decision.template;
  const thought = `Thought ${step}: ${t.thought ? `${t.thought} ` : ''}${words(r, Math.round(draw(r, p.thought_tokens)))}`;
  // With no tool it may call, it says what it would do, and does not do it.
  if (offer.tools.length === 0) return { message: { role: 'assistant', content: thought }, latencyMs };
  const spec = toolFor(p, t.tool, offer.tools);
  let args = JSON.stringify(argumentsFor(t, decision.n, step, spec));
  if (r() < p.malformed_args_rate) args = args.slice(0, -1);
  const id = `call_${hash32(`${seed}:${step}`).toString(36)}`;
  return {
    message: {
      role: 'assistant',
      content: thought,
      tool_calls: [{ id, type: 'function', function: { name: spec.function.name, arguments: args } }],
    },
    latencyMs,
  };
}
