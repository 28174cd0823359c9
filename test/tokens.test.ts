// The sim's billed usage against an independent count of the same messages with the tokenizer.
import { countTokens, encode, encodeChat } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { ChatMessage, ToolSpec } from '../src/contracts/chat.ts';
import { billableCachedTokens } from '../src/meter/prompt-cache.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { gridOf, runOnce, runPlans, specOf, type Ran } from './helpers.ts';
import { loadPricing, priceFor } from '../src/meter/pricing.ts';

/** Straight from the tokenizer, no caching: the documented chat-format rule. */
function independentPrompt(messages: ChatMessage[], tools: ToolSpec[]): number {
  // Plain messages: gpt-tokenizer's own chat encoding (<|im_start|>role<|im_sep|>content<|im_end|>, reply primed).
  const plain = messages.map((m) => ({ role: m.role as 'system' | 'user' | 'assistant', content: m.content ?? '' }));
  let n = encodeChat(plain, 'gpt-4o').length;
  for (const m of messages) {
    if (m.role === 'assistant')
      for (const c of m.tool_calls ?? []) n += 3 + encode(c.function.name).length + encode(c.function.arguments).length;
  }
  return n + cookbookTools(tools);
}

/** The cookbook's tool-counting function for gpt-4o (flat parameters, as the scenarios send). */
function cookbookTools(tools: ToolSpec[]): number {
  const strip = (d = '') => (d.endsWith('.') ? d.slice(0, -1) : d);
  let n = 12;
  for (const { function: f } of tools) {
    n += 7 + encode(`${f.name}:${strip(f.description)}`).length;
    const props = Object.entries(
      (f.parameters?.properties ?? {}) as Record<string, { type: string; description?: string; enum?: string[] }>,
    );
    if (props.length > 0) n += 3;
    for (const [key, p] of props) {
      n += 3 + encode(`${key}:${p.type}:${strip(p.description)}`).length;
      if (p.enum) n += -3 + p.enum.reduce((s, v) => s + 3 + encode(v).length, 0);
    }
  }
  return n;
}

describe('metering with a real tokenizer', () => {
  it.each(['tiny-agent-sum-of-squares', 'seed-calibrated', 'autogpt-recursive-verification', 'downloads-reorg'])(
    '%s: every call bills exactly the tokens of what was sent and received',
    async (id) => {
      const r = await runOnce(id, { max_steps: 12 });
      const tools = ToolRegistry.fromDecls(resolveScenario(id).tools).specs;
      expect(r.calls.length).toBe(r.steps.length);
      r.calls.forEach((c, i) => {
        expect(r.steps[i]!.input_tokens).toBe(independentPrompt(c.sent, tools));
        const out = c.received!;
        const expectedOut =
          encode(out.content ?? '').length +
          (out.role === 'assistant'
            ? (out.tool_calls ?? []).reduce(
                (s, t) => s + 3 + encode(t.function.name).length + encode(t.function.arguments).length,
                0,
              )
            : 0);
        expect(r.steps[i]!.output_tokens).toBe(expectedOut);
      });
    },
  );

  it('is not chars/4', async () => {
    const r = await runOnce('seed-calibrated', { max_steps: 3 });
    const chars = r.calls[2]!.sent.reduce((s, m) => s + (m.content ?? '').length, 0);
    expect(r.steps[2]!.input_tokens).not.toBe(Math.round(chars / 4));
  });

  it('tokenizes each message once per run (incremental metering)', async () => {
    const counter = new TokenCounter();
    const scenario = resolveScenario('seed-calibrated');
    const [r] = await runPlans(specOf([scenario], gridOf({ max_steps: 30 })), counter);
    // Distinct messages of the run + the tool schemas: nothing re-read per step.
    expect(counter.tokenizations).toBe(r!.messages.length + 1);
  });

  it('bills prompt-cache hits as OpenAI does: from 1,024 tokens, in 128-token steps', async () => {
    expect([1023, 1024, 1151, 1152, 5000].map(billableCachedTokens)).toEqual([0, 1024, 1024, 1152, 4992]);
    const r = await runOnce('seed-calibrated', { max_steps: 10 }, { settings: { prompt_cache: true } });
    const cached = r.steps.map((s) => s.cached_tokens);
    expect(cached[0]).toBe(0);
    // From the 3rd call on, the previous prompt (≥ 1,024 tokens) is a cached prefix.
    r.steps.slice(2).forEach((s, i) => {
      const prev = r.steps[i + 1]!;
      expect(s.cached_tokens).toBe(billableCachedTokens(prev.input_tokens - 3));
    });
    const plain = await runOnce('seed-calibrated', { max_steps: 10 });
    expect(r.record.input_tokens).toBe(plain.record.input_tokens);
    expect(r.record.cost_usd).toBeLessThan(plain.record.cost_usd * 0.75);
    expect(r.steps.every((s) => s.cache_write_tokens === undefined)).toBe(true);
  });

  it('priced as an Anthropic model, the sim caches as Anthropic bills it: the earlier prefix read whole from 1,024 tokens, the rest of a 1,024-token prompt written at 1.25× input', async () => {
    const price = priceFor(loadPricing(), 'claude-sonnet-4-5');
    const spec = specOf(['seed-calibrated'], gridOf({ max_steps: 10 }), { settings: { prompt_cache: true } });
    spec.fixed.price = price;
    const [r] = (await runPlans(spec)) as [Ran];
    let total = 0;
    r.steps.forEach((s, i) => {
      // The previous call's messages (its prompt less the 3 tokens that prime the answer) are this call's cached prefix.
      const shared = i === 0 ? 0 : r.steps[i - 1]!.input_tokens - 3;
      const read = shared >= 1024 ? shared : 0;
      const written = s.input_tokens >= 1024 ? s.input_tokens - read : 0;
      expect([s.cached_tokens, s.cache_write_tokens ?? 0], `step ${s.step}`).toEqual([read, written]);
      const usd = ((s.input_tokens - read - written) * 3 + read * 0.3 + written * 3.75 + s.output_tokens * 15) / 1e6;
      expect(s.cost_usd).toBeCloseTo(usd, 12);
      total += usd;
    });
    expect(r.steps.filter((s) => s.cache_write_tokens).length).toBeGreaterThan(5);
    expect(r.record.cost_usd).toBeCloseTo(total, 12);
    // Claude's tokenizer is not o200k_base: every count says it is an estimate, in the steps and the run.
    expect(r.steps.every((s) => s.tokens_estimated === 'o200k_base')).toBe(true);
    expect(r.record.tokens_estimated).toBe('o200k_base');
  });

  it('labels o200k_base counts as estimates only for a simulated model priced as a model with another tokenizer', async () => {
    const { tokensEstimated } = await import('../src/meter/token-estimate.ts');
    expect(['claude-sonnet-4-5', 'gemini-2.5-pro', 'llama3.1'].map((m) => tokensEstimated('sim', m))).toEqual([
      true,
      true,
      true,
    ]);
    expect(
      ['gpt-4o-mini', 'gpt-4.1', 'o4-mini', 'gpt-5', 'custom'].map((m) => tokensEstimated('sim:seed-calibrated', m)),
    ).toEqual([false, false, false, false, false]);
    // A real model's usage is its provider's own count.
    expect(tokensEstimated('openai:claude-sonnet-4-5', 'claude-sonnet-4-5')).toBe(false);
    const plain = await runOnce('seed-calibrated', { max_steps: 3 });
    expect([plain.record.tokens_estimated, plain.steps[0]!.tokens_estimated]).toEqual([undefined, undefined]);
  });
});
