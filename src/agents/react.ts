// The ReAct loop: Thought → Action (tool call) → Observation (appended) → repeat, until the model
// answers without a tool call or a brake stops it. Messages grow exactly as in a real OpenAI
// tool-calling loop: the assistant message with its tool_calls, then one tool message per call.
// The run's hooks decide what each call sends (context strategy) and whether an answer stands
// (reflection); without hooks the whole conversation is sent and the first answer ends the run.
import type { ChatMessage } from '../contracts/chat.ts';
import { stepActions } from '../contracts/fingerprint.ts';
import type { AgentOutcome, AgentRun } from './agent.ts';
import { executeToolCalls, parseCall, type ParsedCall } from './actions.ts';
import { PLAIN_HOOKS } from './hooks.ts';

export async function runReact(run: AgentRun): Promise<AgentOutcome> {
  const { scenario, caller } = run;
  if (scenario.agent !== 'react')
    throw new Error(`runReact: scenario '${scenario.id}' is for the ${scenario.agent} agent`);
  const hooks = run.hooks ?? PLAIN_HOOKS;
  const messages: ChatMessage[] = [
    { role: 'system', content: scenario.system },
    { role: 'user', content: scenario.goal },
  ];
  const tools = run.tools.specs.length ? run.tools.specs : undefined;
  for (;;) {
    const view = await hooks.view(messages, tools);
    if (!view.ok) return { stop: view.stop, answer: null, messages };
    let calls: ParsedCall[] = [];
    const out = await caller.call('act', view.messages, tools, ({ message }) => {
      calls = (message.tool_calls ?? []).map(parseCall);
      return stepActions(calls);
    });
    if (!out.ok) return { stop: out.stop, answer: null, messages };
    const message = out.result.message;
    messages.push(message);
    if (calls.length === 0) {
      const answer = message.content ?? '';
      const review = await hooks.onAnswer(messages, answer, tools);
      if (review.kind === 'stop') return { stop: review.stop, answer: null, messages };
      if (review.kind === 'reopen') {
        messages.push(review.feedback);
        continue;
      }
      const step = caller.state.steps;
      // A provider's cut (finish_reason length) ends the loop like any answer without a tool call; the record says so.
      const cut =
        out.result.finishReason === 'length'
          ? ` (cut at max_tokens ${caller.settings.max_output_tokens}: finish_reason length)`
          : '';
      return { stop: { reason: 'done', detail: `final answer at step ${step}${cut}`, step }, answer, messages };
    }
    const stop = (await executeToolCalls(run, calls, messages)) ?? (await hooks.afterAction(messages, tools));
    if (stop) return { stop, answer: null, messages };
  }
}
