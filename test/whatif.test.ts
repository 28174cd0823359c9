import { describe, expect, it } from 'vitest';
import { loadPricing, priceFor } from '../src/meter/pricing.ts';
import { SEED_LIMITS, type Limits } from '../src/contracts/settings.ts';
import { deriveRun } from '../src/whatif/derive-run.ts';
import { gridOf, runPlans, specOf, type Ran } from './helpers.ts';
import { synthRun } from './helpers/records.ts';

const FIGURES = [
  'steps',
  'calls',
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'cost_usd',
  'stop_reason',
  'stop_step',
  'success',
  'elapsed_ms',
] as const;

async function sweep(
  scenario: string,
  limits: Partial<Limits>,
  o: { price?: string; repeat?: number } = {},
): Promise<Ran[]> {
  const spec = specOf([scenario], gridOf(limits), { repeat: o.repeat ?? 3, seed: 7 });
  if (o.price) spec.fixed.price = priceFor(loadPricing(), o.price);
  return runPlans(spec);
}

/** Derives `to` from a sweep run at `from` and checks it against the sweep actually run at `to`, figure by figure. */
async function expectDerivedEqualsRun(
  scenario: string,
  from: Partial<Limits>,
  to: Partial<Limits>,
  o: { price?: string; repeat?: number } = {},
) {
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
    const { recorded } = await expectDerivedEqualsRun(
      'seed-calibrated',
      { max_steps: 30 },
      { max_steps: 12 },
      { price: 'gpt-4o' },
    );
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
    const { recorded, actual } = await expectDerivedEqualsRun(
      'perfectionist',
      { max_steps: 40 },
      { timeout_s: 60 },
      { repeat: 1 },
    );
    expect(recorded[0]!.record.stop_reason).toBe('timeout');
    expect(actual[0]!.record.stop_step).toBeLessThan(recorded[0]!.record.stop_step);
  });

  it('a checked scenario: runs that answered keep their success, runs cut short fail', async () => {
    const { actual } = await expectDerivedEqualsRun('tiny-agent-sum-of-squares', { max_steps: 8 }, { max_steps: 2 });
    const { actual: at8 } = await expectDerivedEqualsRun(
      'tiny-agent-sum-of-squares',
      { max_steps: 8 },
      { max_steps: 4 },
    );
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
    expect(looser).toEqual({
      ok: false,
      reason: expect.stringMatching(/stopped by max_cost at 0\.5 \(step 24\); what came after was never recorded/),
    });
    const [spun] = await sweep('autogpt-recursive-verification', { max_steps: 30, max_repeat: 3 }, { repeat: 1 });
    expect(spun!.record.stop_reason).toBe('spin');
    expect(deriveRun(spun!.record, spun!.steps, { ...SEED_LIMITS, max_steps: 30, max_repeat: null }, 'x').ok).toBe(
      false,
    );
    // A crash that lost step lines leaves a trajectory no what-if can replay.
    expect(deriveRun(r!.record, r!.steps.slice(0, -1), { ...SEED_LIMITS, max_steps: 12 }, 'x')).toEqual({
      ok: false,
      reason: expect.stringMatching(/steps\.jsonl holds 23 of its 24 calls/),
    });
  });
});

describe('what-if on runs that are not built-in loops: said per limit where the records cannot tell', () => {
  /** An --agent-cmd run of 5 calls (1 s each) that answered, the agent exiting `tail` ms after its last call. */
  const external = (tail: number) => {
    const r = synthRun({
      scenario: 'ext',
      maxSteps: 30,
      repeat: 0,
      input: (n) => 100 * n,
      stepsToDone: 5,
      success: true,
    });
    return { run: { ...r.run, agent: 'external', elapsed_ms: 5000 + tail }, steps: r.steps };
  };
  const at = (o: Partial<Limits>): Limits => ({ ...SEED_LIMITS, max_steps: 30, ...o });

  it('an --agent-cmd agent still running at a tighter timeout after its last call is cut there, unanswered', () => {
    const { run, steps } = external(4000);
    const d = deriveRun(run, steps, at({ timeout_s: 7 }), 'derived');
    if (!d.ok) throw new Error(d.reason);
    expect([d.run.stop_reason, d.run.steps, d.run.success, d.run.elapsed_ms]).toEqual(['timeout', 5, false, 7000]);
    // A timeout it finished within leaves the run as it was.
    const same = deriveRun(run, steps, at({ timeout_s: 10 }), 'derived');
    expect(same.ok && [same.run.stop_reason, same.run.success]).toEqual(['done', true]);
  });

  it('budget and token what-ifs on --agent-cmd runs are refused, naming what the records lack; steps derive', () => {
    const { run, steps } = external(0);
    for (const limit of [{ max_cost_usd: 0.001 }, { max_tokens: 500 }]) {
      const d = deriveRun(run, steps, at(limit), 'derived');
      expect(d.ok).toBe(false);
      expect(!d.ok && d.reason).toMatch(
        /admitted against each request's own max_tokens and the gateway's count of it, which the step records do not keep/,
      );
    }
    const d = deriveRun(run, steps, at({ max_steps: 3 }), 'derived');
    expect(d.ok && [d.run.stop_reason, d.run.steps, d.run.success]).toEqual(['max_steps', 3, false]);
  });

  it('--agent-cmd calls made in parallel are refused: which a tighter limit admits depends on their timing', () => {
    const { run, steps } = external(0);
    // Call 3 began 500 ms before call 2 ended.
    steps[2] = { ...steps[2]!, elapsed_ms: 2500, latency_ms: 1000 };
    const d = deriveRun(run, steps, at({ max_steps: 3 }), 'derived');
    expect(!d.ok && d.reason).toMatch(/made calls in parallel \(call 3 began before call 2 ended\)/);
  });

  it('a timeout what-if on an import without times (a message list) is refused', () => {
    const r = synthRun({
      scenario: 'msgs',
      maxSteps: 30,
      repeat: 0,
      input: (n) => 100 * n,
      stepsToDone: 5,
      success: true,
    });
    const run = { ...r.run, extra: { imported: { clock: false } } };
    const d = deriveRun(run, r.steps, at({ timeout_s: 1 }), 'derived');
    expect(!d.ok && d.reason).toMatch(
      /its trajectories hold no times \(a message list\), so a timeout cannot be derived/,
    );
    expect(deriveRun(run, r.steps, at({ max_steps: 2 }), 'derived').ok).toBe(true);
  });
});
