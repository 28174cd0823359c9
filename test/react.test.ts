// The ReAct loop against scripted models: message growth, refusals, errors, interruption.
import { describe, expect, it } from 'vitest';
import { ModelCaller } from '../src/agents/caller.ts';
import { runReact } from '../src/agents/react.ts';
import { brakesFor } from '../src/brakes/index.ts';
import { ModelError, type AssistantMessage, type ChatModel, type ChatRequest } from '../src/contracts/chat.ts';
import { TokenCounter, completionTokens } from '../src/meter/tokens.ts';
import { VirtualClock } from '../src/contracts/clock.ts';
import type { StepRecord } from '../src/contracts/records.ts';
import { SEED_LIMITS, type Limits } from '../src/contracts/settings.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { gridOf, specOf } from './helpers.ts';

/** A model that plays a fixed script of answers and keeps every request it got. */
function scripted(answers: Array<AssistantMessage | Error>): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const counter = new TokenCounter();
  return {
    id: 'scripted',
    simulated: true,
    requests,
    async complete(req) {
      requests.push({ ...req, messages: req.messages.slice() });
      const a = answers[requests.length - 1];
      if (!a) throw new Error('script exhausted');
      if (a instanceof Error) throw a;
      return {
        message: a,
        usage: {
          prompt_tokens: counter.prompt(req.messages, req.tools),
          completion_tokens: completionTokens(a),
          cached_tokens: 0,
        },
        latencyMs: 100,
        retries: 0,
      };
    },
  };
}

const call = (name: string, args: string, id = `c_${name}_${args.length}`): AssistantMessage => ({
  role: 'assistant',
  content: 'thinking',
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
});
const answer = (text: string): AssistantMessage => ({ role: 'assistant', content: text });

async function play(model: ChatModel, limits: Partial<Limits> = {}, signal?: AbortSignal) {
  const scenario = resolveScenario('tiny-agent-sum-of-squares');
  const [plan] = expandSweep(specOf([scenario], gridOf(limits)));
  const steps: StepRecord[] = [];
  const clock = new VirtualClock();
  const caller = new ModelCaller({
    runId: 'r',
    configId: 'c',
    settings: plan!.settings,
    model,
    counter: new TokenCounter(),
    brakes: brakesFor({ ...SEED_LIMITS, ...limits }),
    clock,
    onStep: (s) => steps.push(s),
    signal,
  });
  const out = await runReact({ scenario, caller, tools: ToolRegistry.fromDecls(scenario.tools), clock, signal });
  return { out, steps };
}

describe('ReAct loop', () => {
  it('grows messages exactly as an OpenAI tool-calling loop: assistant with tool_calls, then one tool message per call', async () => {
    const two: AssistantMessage = {
      role: 'assistant',
      content: 'two at once',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'run_python', arguments: '{"code":"print(1)"}' } },
        { id: 'b', type: 'function', function: { name: 'run_python', arguments: '{"code":"print(2)"}' } },
      ],
    };
    const model = scripted([two, answer('1 and 2')]);
    const { out } = await play(model);
    expect(out.stop.reason).toBe('done');
    const second = model.requests[1]!.messages;
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool']);
    expect(second.slice(3)).toEqual([
      { role: 'tool', tool_call_id: 'a', content: '1\n' },
      { role: 'tool', tool_call_id: 'b', content: '2\n' },
    ]);
    expect(model.requests[0]!.tools?.[0]?.function.name).toBe('run_python');
  });

  it('refuses an unknown tool with a tool message, and goes on', async () => {
    const model = scripted([call('browse', '{"url":"x"}'), answer('338350')]);
    const { out } = await play(model);
    expect(out.stop.reason).toBe('done');
    const tool = model.requests[1]!.messages[3]!;
    expect(tool).toMatchObject({ role: 'tool', content: expect.stringContaining("unknown tool 'browse'") });
    expect(tool.content).toContain('run_python');
  });

  it('turns malformed JSON arguments into an error observation, not a crash', async () => {
    const model = scripted([call('run_python', '{"code": "print(1)"'), call('run_python', '[1,2]'), answer('done')]);
    const { out } = await play(model);
    expect(out.stop.reason).toBe('done');
    expect(model.requests[1]!.messages[3]!.content).toMatch(/not valid JSON/);
    expect(model.requests[2]!.messages[5]!.content).toMatch(/must be a JSON object/);
  });

  it('ends a run with `error` and a step record when the model fails for good', async () => {
    const model = scripted([call('run_python', '{"code":"print(1)"}'), new ModelError('HTTP 500 after 2 retries', 2)]);
    const { out, steps } = await play(model);
    expect(out.stop).toMatchObject({ reason: 'error', step: 2 });
    expect(out.stop.detail).toContain('HTTP 500 after 2 retries');
    expect(steps[1]).toMatchObject({ step: 2, error: 'HTTP 500 after 2 retries', retries: 2, input_tokens: 0 });
  });

  it('makes no model call once interrupted', async () => {
    const ac = new AbortController();
    ac.abort();
    const model = scripted([answer('never')]);
    const { out, steps } = await play(model, {}, ac.signal);
    expect(out.stop.reason).toBe('interrupted');
    expect(model.requests).toHaveLength(0);
    expect(steps).toHaveLength(0);
  });

  it('records cumulative tokens and cost per call', async () => {
    const model = scripted([call('run_python', '{"code":"print(1)"}'), answer('1')]);
    const { steps } = await play(model);
    expect(steps[1]!.cum_input_tokens).toBe(steps[0]!.input_tokens + steps[1]!.input_tokens);
    expect(steps[1]!.cum_cost_usd).toBeCloseTo(steps[0]!.cost_usd + steps[1]!.cost_usd, 12);
    expect(steps[0]!.action).toBe('run_python');
    expect(steps[1]!.action).toBeNull();
  });
});
