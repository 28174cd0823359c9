// The ReAct loop: Thought → Action (tool call) → Observation (appended) → repeat, until the model
// answers without a tool call or a brake stops it. Messages grow exactly as in a real OpenAI
// tool-calling loop: the assistant message with its tool_calls, then one tool message per call.
import type { ChatMessage } from '../models/chat.ts';
import type { AgentOutcome, AgentRun } from './agent.ts';
import { actionOf, executeToolCalls } from './actions.ts';

export async function runReact(run: AgentRun): Promise<AgentOutcome> {
  const { scenario, caller } = run;
  if (scenario.agent !== 'react') throw new Error(`runReact: scenario '${scenario.id}' is for the ${scenario.agent} agent`);
  const messages: ChatMessage[] = [
    { role: 'system', content: scenario.system },
    { role: 'user', content: scenario.goal },
  ];
  const tools = run.tools.specs.length ? run.tools.specs : undefined;
  for (;;) {
    const out = await caller.call('act', messages, tools, ({ message }) => {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { action: null, fingerprint: null };
      const actions = calls.map(actionOf);
      return { action: actions.map((a) => a.tool).join('|'), fingerprint: actions.map((a) => a.fingerprint).join('|') };
    });
    if (!out.ok) return { stop: out.stop, answer: null, messages };
    const message = out.result.message;
    messages.push(message);
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      const step = caller.state.steps;
      return { stop: { reason: 'done', detail: `final answer at step ${step}`, step }, answer: message.content ?? '', messages };
    }
    const stop = await executeToolCalls(run, calls, messages);
    if (stop) return { stop, answer: null, messages };
  }
}
