// Each brake fires at the right step — not one early, not one late — on the shipped scenarios.
import { describe, expect, it } from 'vitest';
import { STOP_REASONS } from '../src/contracts/stop-reason.ts';
import { fingerprint, canonicalJson } from '../src/contracts/fingerprint.ts';
import { callCost } from '../src/meter/pricing.ts';
import { TokenCounter } from '../src/meter/tokens.ts';
import { resolveScenario } from '../src/scenario/loader.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { runOnce } from './helpers.ts';

const OFF = {
  max_steps: null,
  max_cost_usd: null,
  timeout_s: null,
  max_repeat: null,
  max_tokens: null,
  max_calls: null,
};

describe('max_steps', () => {
  it.each([1, 10, 12, 30])('stops seed-calibrated after exactly %i steps', async (n) => {
    const r = await runOnce('seed-calibrated', { ...OFF, max_steps: n });
    expect(r.record.stop_reason).toBe('max_steps');
    expect(r.record.steps).toBe(n);
    expect(r.record.calls).toBe(n);
    expect(r.record.stop_step).toBe(n);
    expect(r.steps.map((s) => s.step)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(r.record.stop_detail).toContain(`${n} of ${n} steps`);
  });
});

describe('spin detection', () => {
  it('blocks the 4th identical completeness check (step 8) of the AutoGPT loop and does not run it', async () => {
    const r = await runOnce('autogpt-recursive-verification', { max_steps: 30 });
    expect(r.record.stop_reason).toBe('spin');
    expect(r.record.stop_step).toBe(8);
    expect(r.record.stop_detail).toContain('check_completeness({}) already ran 3 times');
    // The 8th call was made and billed; its action was not executed: no tool result follows it.
    expect(r.steps).toHaveLength(8);
    const last = r.messages[r.messages.length - 1]!;
    expect(last.role).toBe('assistant');
    expect(r.messages.filter((m) => m.role === 'tool')).toHaveLength(7);
  });

  it('follows MAX_REPEAT: with 2 the 3rd check (step 6) is blocked', async () => {
    const r = await runOnce('autogpt-recursive-verification', { max_steps: 30, max_repeat: 2 });
    expect([r.record.stop_reason, r.record.stop_step]).toEqual(['spin', 6]);
  });

  it('with the spin brake off, the AutoGPT loop runs to the step limit', async () => {
    const r = await runOnce('autogpt-recursive-verification', { max_steps: 12, max_repeat: null });
    expect([r.record.stop_reason, r.record.steps]).toEqual(['max_steps', 12]);
  });

  it('catches the four-step downloads cycle at step 13, after the step limit of 12 would have', async () => {
    const long = await runOnce('downloads-reorg', { max_steps: 30 });
    expect([long.record.stop_reason, long.record.stop_step]).toEqual(['spin', 13]);
    expect(long.record.stop_detail).toContain('sort_files({"criterion":"type"})');
    const seed = await runOnce('downloads-reorg', { max_steps: 12 });
    expect([seed.record.stop_reason, seed.record.steps]).toEqual(['max_steps', 12]);
  });

  it('cannot catch the perfectionist: every improvement is different, so the step limit stops it', async () => {
    const r = await runOnce('perfectionist', { max_steps: 16, timeout_s: null });
    expect(r.record.stop_reason).toBe('max_steps');
    expect(new Set(r.steps.map((s) => s.fingerprint)).size).toBe(16);
    expect(r.record.success).toBe(false);
  });

  it('fingerprints are canonical: key order and spacing do not matter', () => {
    expect(fingerprint('t', JSON.parse('{"b": 2, "a": {"y": 1, "x": [1, 2]}}'))).toBe(
      fingerprint('t', { a: { x: [1, 2], y: 1 }, b: 2 }),
    );
    expect(canonicalJson({ b: 1, a: null })).toBe('{"a":null,"b":1}');
  });
});

describe('budget', () => {
  it.each([0.005, 0.02, 0.0421])(
    'never exceeds $%f and stops only when the next call could cross it',
    async (limit) => {
      const r = await runOnce('seed-calibrated', { ...OFF, max_cost_usd: limit });
      expect(r.record.stop_reason).toBe('max_cost');
      expect(r.record.cost_usd).toBeLessThanOrEqual(limit);
      // The call it refused (the whole conversation as input, plus max output) would have crossed it.
      const last = r.steps[r.steps.length - 1]!;
      const nextInput = new TokenCounter().prompt(
        r.messages,
        ToolRegistry.fromDecls(resolveScenario('seed-calibrated').tools).specs,
      );
      expect(r.record.cost_usd + callCost(last.settings.price, nextInput, 1024, 0)).toBeGreaterThan(limit);
      // One call fewer would have been stopped too early: the brake let every affordable call through.
      const prev = r.steps[r.steps.length - 2]!;
      expect(prev.cum_cost_usd + callCost(last.settings.price, last.input_tokens, 1024, 0)).toBeLessThanOrEqual(limit);
    },
  );
});

describe('timeout (virtual clock for simulated models)', () => {
  it('fires at the first call after the limit, deterministically', async () => {
    const a = await runOnce('seed-calibrated', { ...OFF, timeout_s: 10 });
    const b = await runOnce('seed-calibrated', { ...OFF, timeout_s: 10 });
    expect(a.record.stop_reason).toBe('timeout');
    expect(a.record.steps).toBe(b.record.steps);
    expect(a.record.elapsed_ms).toBe(b.record.elapsed_ms);
    // Each step's model latency + the search tool's 300 ms advance the clock: the brake fires
    // before the first call that would start at or after 10 s, and not before.
    const last = a.steps[a.steps.length - 1]!;
    expect(last.elapsed_ms + 300).toBeGreaterThanOrEqual(10_000);
    const prev = a.steps[a.steps.length - 2]!;
    expect(prev.elapsed_ms + 300).toBeLessThan(10_000);
  });
});

describe('max_tokens and max_calls', () => {
  it('never lets total tokens pass the limit', async () => {
    const r = await runOnce('seed-calibrated', { ...OFF, max_tokens: 20_000 });
    expect(r.record.stop_reason).toBe('max_tokens');
    expect(r.record.input_tokens + r.record.output_tokens).toBeLessThanOrEqual(20_000);
  });

  it('stops after exactly N model calls', async () => {
    const r = await runOnce('seed-calibrated', { ...OFF, max_calls: 5 });
    expect([r.record.stop_reason, r.record.calls]).toEqual(['max_calls', 5]);
  });
});

describe('done', () => {
  it('ends tiny-agent with a checked answer 338350 after real Python ran', async () => {
    const r = await runOnce('tiny-agent-sum-of-squares');
    expect(r.record.stop_reason).toBe('done');
    expect(r.record.answer).toContain('338350');
    expect(r.record.success).toBe(true);
    const observations = r.messages.filter((m) => m.role === 'tool').map((m) => m.content.trim());
    expect(observations[0]).toBe('338350');
  });

  it('has a closed set of stop reasons', () => {
    expect(STOP_REASONS).toEqual([
      'done',
      'max_steps',
      'max_cost',
      'timeout',
      'spin',
      'max_tokens',
      'max_calls',
      'max_rounds',
      'queue_empty',
      'error',
      'interrupted',
      'imported',
    ]);
  });
});
