// A model that returns more output than max_tokens: what the excess cost is priced like the call it came in
// (a long-context tier, a reasoning rate), not at the model's base output rate.
import { describe, expect, it } from 'vitest';
import { ModelCaller } from '../src/agents/caller.ts';
import type { ChatModel, Usage } from '../src/contracts/chat.ts';
import { VirtualClock } from '../src/contracts/clock.ts';
import type { StepRecord } from '../src/contracts/records.ts';
import type { Price } from '../src/contracts/settings.ts';
import { requirePrice } from '../src/meter/model-price.ts';
import { loadPricing } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { overrunDetail } from '../src/runner/overrun.ts';
import { expandSweep } from '../src/runner/sweep.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { gridOf, specOf } from './helpers.ts';

const MAX = 100;

/** One call answered with `usage`, through the caller every built-in loop uses. */
async function callWith(usage: Usage, price: Price) {
  const [plan] = expandSweep(specOf([resolveScenario('tiny-agent-sum-of-squares')], gridOf()));
  const model: ChatModel = {
    id: 'long',
    simulated: true,
    complete: async () => ({ message: { role: 'assistant', content: 'x' }, usage, latencyMs: 1, retries: 0 }),
  };
  const steps: StepRecord[] = [];
  const caller = new ModelCaller({
    runId: 'r',
    configId: 'c',
    settings: { ...plan!.settings, price, max_output_tokens: MAX },
    model,
    counter: new TokenCounter(),
    brakes: [],
    clock: new VirtualClock(),
    onStep: (s) => steps.push(s),
  });
  const out = await caller.call('act', [{ role: 'user', content: 'go' }]);
  expect(out.ok).toBe(true);
  return { overrun: caller.overrun!, step: steps[0]! };
}

describe('output beyond max_tokens', () => {
  const sonnet = requirePrice(loadPricing(), 'claude-sonnet-4-5');

  it('is priced at the long-context tier its call was billed at: the call as made less the call cut at max_tokens', async () => {
    // Above 200k prompt tokens the whole call is billed at $6 in and $22.50 out per 1M (data/pricing.yaml).
    expect(sonnet.long_context?.[0]).toMatchObject({ above_tokens: 200_000, input_per_1m: 6, output_per_1m: 22.5 });
    const { overrun, step } = await callWith(
      { prompt_tokens: 250_000, completion_tokens: 500, cached_tokens: 0 },
      sonnet,
    );
    expect(step.cost_usd).toBeCloseTo((250_000 * 6 + 500 * 22.5) / 1e6, 12);
    expect(overrun).toMatchObject({ calls: 1, tokens: 400, largest_output_tokens: 500, max_output_tokens: MAX });
    // 400 tokens at $22.50, not at the base $15 ($0.0060).
    expect(overrun.cost_usd).toBeCloseTo((400 * 22.5) / 1e6, 12);
    expect(overrunDetail(overrun, step.cost_usd, null)).toContain('400 tokens, $0.0090 beyond the worst case');
  });

  it('below the tier, at the base rate; reasoning is the first output generated, so the cut keeps it', async () => {
    const small = await callWith({ prompt_tokens: 1_000, completion_tokens: 500, cached_tokens: 0 }, sonnet);
    expect(small.overrun.cost_usd).toBeCloseTo((400 * 15) / 1e6, 12);
    // A reasoning rate of its own ($60): 80 reasoning tokens fit within the 100 kept, so the excess is answer text.
    const reasoner = { ...sonnet, reasoning_per_1m: 60 };
    const within = await callWith(
      { prompt_tokens: 1_000, completion_tokens: 500, cached_tokens: 0, reasoning_tokens: 80 },
      reasoner,
    );
    expect(within.overrun.cost_usd).toBeCloseTo((400 * 15) / 1e6, 12);
    // 300 reasoning tokens: 100 kept, 200 of the excess are reasoning.
    const beyond = await callWith(
      { prompt_tokens: 1_000, completion_tokens: 500, cached_tokens: 0, reasoning_tokens: 300 },
      reasoner,
    );
    expect(beyond.overrun.cost_usd).toBeCloseTo((200 * 60 + 200 * 15) / 1e6, 12);
    expect(beyond.step.cost_usd - beyond.overrun.cost_usd).toBeCloseTo((1_000 * 3 + 100 * 60) / 1e6, 12);
  });
});
