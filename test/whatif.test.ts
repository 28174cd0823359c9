import { describe, expect, it } from 'vitest';
import { loadPricing, priceFor } from '../src/meter/pricing.ts';
import { SEED_LIMITS, type Limits } from '../src/contracts/settings.ts';
import { deriveRun } from '../src/whatif/derive-run.ts';
import { gridOf, runPlans, specOf, type Ran } from './helpers.ts';

const FIGURES = ['steps', 'calls', 'input_tokens', 'output_tokens', 'cached_tokens', 'cost_usd', 'stop_reason', 'stop_step', 'success', 'elapsed_ms'] as const;

async function sweep(scenario: string, limits: Partial<Limits>, o: { price?: string; repeat?: number } = {}): Promise<Ran[]> {
  const spec = specOf([scenario], gridOf(limits), { repeat: o.repeat ?? 3, seed: 7 });
  if (o.price) spec.fixed.price = priceFor(loadPricing(), o.price);
  return runPlans(spec);
}

/** Derives `to` from a sweep run at `from` and checks it against the sweep actually run at `to`, figure by figure. */
async function expectDerivedEqualsRun(scenario: string, from: Partial<Limits>, to: Partial<Limits>, o: { price?: string; repeat?: number } = {}) {
  const [recorded, actual] = await Promise.all([sweep(scenario, from, o), sweep(scenario, { ...from, ...to }, o)]);
  const limits = { ...SEED_LIMITS, ...from, ...to };
  recorded.forEach((r, i) => {
    const d = deriveRun(r.record, r.steps, limits, 'derived');
    if (!d.ok) throw new Error(d.reason);
    const want = actual[i]!.record;
    for (const f of FIGURES) expect(d.run[f], `${scenario} repeat ${i}: ${f}`).toEqual(want[f]);
  });
  return { recorded, actual };
}

describe('what-if limits derived from recorded trajectories equal the sweep actually run (sim, same seed)', () => {
  it('steps 12 from a 30-step sweep of seed-calibrated', async () => {
    const { recorded, actual } = await expectDerivedEqualsRun('seed-calibrated', { max_steps: 30 }, { max_steps: 12 });
    expect(recorded[0]!.record.steps).toBe(30);
    expect(actual[0]!.record.stop_reason).toBe('max_steps');
  });

  it('steps 12 from a 30-step sweep priced as gpt-4o, where the budget stopped the 30-step runs at step 24', async () => {
    const { recorded } = await expectDerivedEqualsRun('seed-calibrated', { max_steps: 30 }, { max_steps: 12 }, { price: 'gpt-4o' });
    expect(recorded[0]!.record.stop_reason).toBe('max_cost');
    // 24 is where the budget stopped them: a what-if at 24 is the step limit's, checked first.
    await expectDerivedEqualsRun('seed-calibrated', { max_steps: 30 }, { max_steps: 24 }, { price: 'gpt-4o' });
  });

  it('a tighter budget, token limit and call limit', async () => {
    await expectDerivedEqualsRun('seed-calibrated', { max_steps: 30 }, { max_cost_usd: 0.2 }, { price: 'gpt-4o' });
    await expectDerivedEqualsRun('seed-calibrated', { max_steps: 30 }, { max_tokens: 50_000 });
    await expectDerivedEqualsRun('seed-calibrated', { max_steps: 30 }, { max_calls: 9 });
  });

  it('a tighter timeout on perfectionist, whose 40-step runs the timeout stops', async () => {
    // Long histories make perfectionist the slowest sim: one run each.
    const { recorded, actual } = await expectDerivedEqualsRun('perfectionist', { max_steps: 40 }, { timeout_s: 60 }, { repeat: 1 });
    expect(recorded[0]!.record.stop_reason).toBe('timeout');
    expect(actual[0]!.record.stop_step).toBeLessThan(recorded[0]!.record.stop_step);
  });

  it('a checked scenario: runs that answered keep their success, runs cut short fail', async () => {
    const { actual } = await expectDerivedEqualsRun('tiny-agent-sum-of-squares', { max_steps: 8 }, { max_steps: 2 });
    const { actual: at8 } = await expectDerivedEqualsRun('tiny-agent-sum-of-squares', { max_steps: 8 }, { max_steps: 4 });
    expect(actual.every((r) => r.record.success === false)).toBe(true);
    expect(at8.some((r) => r.record.success === true)).toBe(true);
  });

  it('a tighter spin limit', async () => {
    await expectDerivedEqualsRun('autogpt-recursive-verification', { max_steps: 30, max_repeat: 3 }, { max_repeat: 2 });
    await expectDerivedEqualsRun('downloads-reorg', { max_steps: 30, max_repeat: null }, { max_repeat: 2 });
  });

  it('refuses, with the reason, a limit the records cannot answer: one looser than the brake that stopped the runs', async () => {
    const [r] = await sweep('seed-calibrated', { max_steps: 30 }, { price: 'gpt-4o', repeat: 1 });
    const looser = deriveRun(r!.record, r!.steps, { ...SEED_LIMITS, max_steps: 30, max_cost_usd: null }, 'x');
    expect(looser).toEqual({ ok: false, reason: expect.stringMatching(/stopped by max_cost at 0\.5 \(step 24\); what came after was never recorded/) });
    const [spun] = await sweep('autogpt-recursive-verification', { max_steps: 30, max_repeat: 3 }, { repeat: 1 });
    expect(spun!.record.stop_reason).toBe('spin');
    expect(deriveRun(spun!.record, spun!.steps, { ...SEED_LIMITS, max_steps: 30, max_repeat: null }, 'x').ok).toBe(false);
    // A crash that lost step lines leaves a trajectory no what-if can replay.
    expect(deriveRun(r!.record, r!.steps.slice(0, -1), { ...SEED_LIMITS, max_steps: 12 }, 'x')).toEqual({ ok: false, reason: expect.stringMatching(/steps\.jsonl holds 23 of its 24 calls/) });
  });
});
